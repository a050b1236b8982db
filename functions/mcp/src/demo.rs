//! `--demo`: the fake Kobana with sample data, in this process. A cargo feature, left out of
//! the Lambda build; without it each entry says how to get the demo instead.

use std::process::ExitCode;

use kobana_mcp::Config;

/// The demo's fake Kobana, kept alive while the server runs.
#[cfg(feature = "demo")]
pub type Fake = fake_kobana::FakeKobana;
/// Nothing: this build has no demo.
#[cfg(not(feature = "demo"))]
pub type Fake = ();

#[cfg(not(feature = "demo"))]
fn missing() -> ExitCode {
    eprintln!(
        "kobana-mcp: this build has no demo mode (it is left out of the Lambda build); \
         run `cargo demo`, or build with `--features demo`"
    );
    ExitCode::from(2)
}

/// Starts the fake and points `config` at it: its URL, its full token for requests without
/// one, and its clock as the server's billing day (one story: what the fake counts overdue,
/// the server does too). `None` (having said why) when this build has no demo.
pub async fn start(config: &mut Config) -> Option<Fake> {
    #[cfg(feature = "demo")]
    {
        let fake = fake_kobana::FakeKobana::start().await;
        config.kobana_api_url = fake.base_url();
        config.anonymous_token = Some(fake_kobana::full_token());
        config.billing_now = Some(fake_kobana::clock::now_epoch());
        Some(fake)
    }
    #[cfg(not(feature = "demo"))]
    {
        let _ = config;
        missing();
        None
    }
}

/// Says at start what the demo holds and how to reach it.
pub fn banner(fake: &Fake, config: &Config) {
    #[cfg(feature = "demo")]
    eprintln!(
        "demo mode: fake Kobana at {} with sample data; requests without a token act as the demo user.\n\
         {}\n\
         full token:      {}\nread-only token: {}",
        config.kobana_api_url,
        fake.summary(),
        fake_kobana::full_token(),
        fake_kobana::readonly_token()
    );
    #[cfg(not(feature = "demo"))]
    let _ = (fake, config);
}

/// `kobana-mcp --demo check [--json]`: `check` against the fake in this process, with its
/// full token, so the demo binary checks itself without a rebuild.
pub async fn check(args: &[String]) -> ExitCode {
    #[cfg(feature = "demo")]
    {
        if let Some(taken) = args.iter().find(|a| {
            ["--token", "--api-url", "--mcp"].contains(&a.split('=').next().unwrap_or(""))
        }) {
            eprintln!(
                "kobana-mcp --demo check: {taken} is not taken here: the demo checks its own fake \
                 (run `kobana-mcp check` for a real account)\n{}",
                kobana_mcp::check::USAGE
            );
            return ExitCode::from(2);
        }
        let fake = fake_kobana::FakeKobana::start().await;
        let mut full = vec![
            "--api-url".to_owned(),
            fake.base_url(),
            "--token".to_owned(),
            fake_kobana::full_token(),
        ];
        full.extend(args.iter().cloned());
        kobana_mcp::check::run(&full).await
    }
    #[cfg(not(feature = "demo"))]
    {
        let _ = args;
        missing()
    }
}
