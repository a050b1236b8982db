//! Real clients, run as their users run them: the official SDKs (TypeScript, Python) in
//! both eras, the client-library matrix, the host CLIs, a browser (CORS), OAuth discovery,
//! and the "Connect from your host" document they are configured from. All but `doc` drive
//! programs from outside the project (the gate runs them; the quick loop skips them).

pub mod support;

mod browser_cors;
mod doc;
mod host_clis;
mod matrix;
mod oauth_discovery;
mod sdk_flows;
mod sdks;
