//! `contract-report [--partial] <dir>`: the run-wide contract report over the files the fakes
//! (and the tests that saw the server refuse an excluded operation) wrote to
//! `$KOBANA_CONTRACT_LOG`: every operation, exercised or refused without a call. Exits 1 when
//! anything left the contract or (without `--partial`, which a subset run uses) an operation
//! was neither exercised nor refused, or was both; 2 when the directory cannot be read.

use std::path::Path;
use std::process::ExitCode;

use fake_kobana::report::Report;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let partial = args.first().is_some_and(|a| a == "--partial");
    if partial {
        args.remove(0);
    }
    let [dir] = args.as_slice() else {
        eprintln!(
            "usage: contract-report [--partial] <dir>   (the KOBANA_CONTRACT_LOG directory of a run)"
        );
        return ExitCode::from(2);
    };
    match Report::from_dir(Path::new(&dir)) {
        Ok(report) => {
            print!("{}", report.render());
            if (partial && report.clean()) || report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("contract-report: {e}");
            ExitCode::from(2)
        }
    }
}
