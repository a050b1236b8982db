//! Percentiles and medians.

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// The `p`-th percentile (0..=100) of `values`, nearest rank; 0 when empty.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    let s = sorted(values);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s.get(rank.max(1) - 1).copied().unwrap_or(0.0)
}

/// The median (mean of the two middle values for an even count); 0 when empty.
pub fn median(values: &[f64]) -> f64 {
    let s = sorted(values);
    match s.len() {
        0 => 0.0,
        n => (s[(n - 1) / 2] + s[n / 2]) / 2.0,
    }
}
