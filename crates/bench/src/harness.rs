//! A small timing harness: warm-up, batches long enough for the clock, the
//! median of the batches.
//!
//! criterion would do the same with more statistics and a long compile; the
//! figures here are medians of per-call times, which is all the targets ask.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Per-call times of one measured function, in nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub median_ns: f64,
}

impl Timing {
    pub fn median_us(&self) -> f64 {
        self.median_ns / 1e3
    }
    pub fn median_ms(&self) -> f64 {
        self.median_ns / 1e6
    }
}

/// Times `f` for about `budget`: a tenth of it (at least one call) warms up,
/// then batches of at least 1 ms (about 50 of them when the budget allows),
/// at least `min_batches`, at most 2000.
pub fn time<R>(budget: Duration, min_batches: usize, mut f: impl FnMut() -> R) -> Timing {
    let start = Instant::now();
    let mut calls = 0u64;
    loop {
        black_box(f());
        calls += 1;
        if start.elapsed() >= budget / 10 {
            break;
        }
    }
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    let batch_seconds = (budget.as_secs_f64() * 0.9 / 50.0).max(1e-3);
    let calls_per_batch = ((batch_seconds / per_call).floor() as u64).max(1);
    let end = Instant::now() + budget.mul_f64(0.9);
    let mut per_call_ns = Vec::new();
    while per_call_ns.len() < min_batches.max(1)
        || (Instant::now() < end && per_call_ns.len() < 2000)
    {
        let t = Instant::now();
        for _ in 0..calls_per_batch {
            black_box(f());
        }
        per_call_ns.push(t.elapsed().as_secs_f64() * 1e9 / calls_per_batch as f64);
    }
    per_call_ns.sort_by(f64::total_cmp);
    Timing {
        median_ns: quantile(&per_call_ns, 0.5),
    }
}

/// The CPU time (user and system) `f` takes in one call, in milliseconds, from this
/// thread's clock (`/proc/thread-self/stat`, in ticks of 10 ms): unlike the wall time, it
/// hardly grows when other work shares the machine's cores. NaN where there is no /proc.
pub fn cpu_ms<R>(f: impl FnOnce() -> R) -> f64 {
    fn ticks() -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        // The fields after the command's name (which may hold spaces), from field 3 on:
        // utime and stime are fields 14 and 15.
        let rest = stat.rsplit_once(')')?.1;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
    }
    let before = ticks();
    black_box(f());
    match (before, ticks()) {
        (Some(before), Some(after)) => (after - before) as f64 * 10.0,
        _ => f64::NAN,
    }
}

/// Linear-interpolation quantile of sorted values.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
    }

    #[test]
    fn times_a_sleep_roughly() {
        let t = time(Duration::from_millis(50), 3, || {
            std::thread::sleep(Duration::from_millis(2))
        });
        assert!(t.median_ns >= 2e6 && t.median_ns < 2e7, "{t:?}");
    }
}
