//! How figures are written in the table: fixed, readable precision per unit.

/// Milliseconds, e.g. `0.123 ms`, `12.3 ms`, `1234 ms`.
pub fn ms(value: f64) -> String {
    if value < 1.0 {
        format!("{value:.3} ms")
    } else if value < 100.0 {
        format!("{value:.2} ms")
    } else {
        format!("{value:.0} ms")
    }
}

/// KiB as MiB with one decimal, e.g. `7.4 MiB`.
pub fn mib(kib: f64) -> String {
    format!("{:.1} MiB", kib / 1024.0)
}

/// KiB, e.g. `52.1 KiB`.
pub fn kib(kib: f64) -> String {
    format!("{kib:.1} KiB")
}

/// A ratio, e.g. `1.23×`.
pub fn times(ratio: f64) -> String {
    format!("{ratio:.2}×")
}

/// A throughput, e.g. `18.2 MB/s` (decimal megabytes).
pub fn mb_per_s(bytes: u64, seconds: f64) -> String {
    format!("{:.1} MB/s", bytes as f64 / seconds / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_units() {
        assert_eq!(ms(0.1234), "0.123 ms");
        assert_eq!(ms(12.345), "12.35 ms");
        assert_eq!(ms(1234.4), "1234 ms");
        assert_eq!(mib(2048.0), "2.0 MiB");
        assert_eq!(times(1.234), "1.23×");
        assert_eq!(mb_per_s(20_000_000, 2.0), "10.0 MB/s");
    }
}
