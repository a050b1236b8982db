//! The end of a run: the report, its JSON and `BENCHMARKS.md`.

use super::*;

pub(crate) fn finish(
    bench: Bench,
    mut report: Report,
    machine: Vec<(String, String)>,
    started: Instant,
) -> ExitCode {
    // Rows in the order (1–6); within an item, in the order measured.
    report.rows.sort_by(|a, b| a.item.cmp(&b.item));
    let (holds, fails) = report.tally();
    let mut info = machine.clone();
    info.extend(bench.opts.info.iter().cloned());
    let info_text = info
        .iter()
        .map(|(k, v)| format!("- {k}: {v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let mode = if bench.opts.smoke {
        "SMOKE (tiny counts: the figures only prove the steps work, they are not measurements)"
    } else {
        "full"
    };
    let mut text = format!(
        "## Results ({mode})\n\n{info_text}\n- wall time of the run: {:.0} s\n\n{}\n",
        started.elapsed().as_secs_f64(),
        report.table()
    );
    text.push_str(&format!(
        "\n{holds} targets hold, {fails} missed; {} failed step(s).\n",
        report.failures.len()
    ));
    for d in &report.details {
        text.push_str(&format!("\n{d}"));
    }
    if !report.notes.is_empty() {
        text.push_str("\n**Notes**\n\n");
        for n in &report.notes {
            text.push_str(&format!("- {n}\n"));
        }
    }
    if !report.failures.is_empty() {
        text.push_str("\n**Failed steps**\n\n");
        for f in &report.failures {
            text.push_str(&format!("- {f}\n"));
        }
    }
    println!("\n{text}");
    let _ = std::fs::write(bench.work.join("results.md"), &text);
    report.raw.insert("rows".into(), json!(report.rows));
    report.raw.insert("failures".into(), json!(report.failures));
    let _ = std::fs::write(
        bench.work.join("results.json"),
        serde_json::to_vec_pretty(&Value::Object(report.raw.clone())).unwrap_or_default(),
    );
    let latest = bench.opts.out.join("latest.md");
    let _ = std::fs::write(&latest, &text);
    if let Some(path) = &bench.opts.benchmarks_md {
        if bench.opts.smoke {
            eprintln!("bench: not writing {} from a smoke run", path.display());
        } else if let Err(e) =
            std::fs::write(path, answer_size::keep_section(path, benchmarks_md(&text)))
        {
            eprintln!("bench: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        } else {
            eprintln!("bench: wrote {}", path.display());
        }
    }
    if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

pub(crate) fn benchmarks_md(results: &str) -> String {
    format!(
        "# Benchmarks\n\n\
         The latest full run of `bench/run.sh` (see [bench/README.md](bench/README.md) for what each line measures and how). \
         Regenerate with `bench/run.sh`; `bench/run.sh --smoke` is the quick check that runs in the test command. \
         \"Holds\" compares each figure with the target from the benchmark issue; MB = 10^6 bytes. \
         The machine is a shared, noisy 2-core VM: ratios measured side by side in the same run are more \
         trustworthy than absolute figures.\n\n{results}"
    )
}
