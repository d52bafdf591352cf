//! Hand-written SVG bar charts: one bar per host (the median), a whisker from min to max.

use std::fmt::Write as _;

use super::report::Stats;
use super::workload::Unit;

const WIDTH: f64 = 760.0;
const LABEL: f64 = 120.0;
const VALUE: f64 = 110.0;
const ROW: f64 = 34.0;
const TOP: f64 = 58.0;

/// A horizontal bar chart of `rows` (`label`, stats in seconds or KiB), in `unit`.
pub fn bars(title: &str, subtitle: &str, unit: Unit, rows: &[(&str, Stats)]) -> String {
    let height = TOP + ROW * rows.len() as f64 + 30.0;
    let plot = WIDTH - LABEL - VALUE;
    let top_value = rows
        .iter()
        .map(|(_, s)| unit.scale(s.max))
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let x = |v: f64| LABEL + plot * (unit.scale(v) / top_value);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="Helvetica, Arial, sans-serif" font-size="13">"##
    );
    let _ = writeln!(
        svg,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r##"<text x="12" y="22" font-size="15" font-weight="bold">{}</text>"##,
        escape(title)
    );
    let _ = writeln!(
        svg,
        r##"<text x="12" y="40" fill="#555555">{}</text>"##,
        escape(subtitle)
    );
    for (i, (label, stats)) in rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let colour = if *label == "twinwire" {
            "#c2410c"
        } else {
            "#64748b"
        };
        let end = x(stats.median);
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LABEL - 8.0,
            y + 17.0,
            escape(label)
        );
        let _ = writeln!(
            svg,
            r##"<rect x="{LABEL}" y="{:.1}" width="{:.1}" height="22" fill="{colour}"/>"##,
            y + 2.0,
            (end - LABEL).max(1.0)
        );
        let (lo, hi) = (x(stats.min), x(stats.max));
        let mid = y + 13.0;
        let _ = writeln!(
            svg,
            r##"<path d="M{lo:.1} {mid:.1}H{hi:.1}M{lo:.1} {:.1}V{:.1}M{hi:.1} {:.1}V{:.1}" stroke="#111111" stroke-width="1.2" fill="none"/>"##,
            mid - 5.0,
            mid + 5.0,
            mid - 5.0,
            mid + 5.0
        );
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}">{}</text>"##,
            hi.max(end) + 8.0,
            y + 17.0,
            escape(&unit.format(stats.median))
        );
    }
    let axis = TOP + ROW * rows.len() as f64 + 4.0;
    let _ = writeln!(
        svg,
        r##"<path d="M{LABEL} {TOP}V{axis:.1}H{:.1}" stroke="#999999" fill="none"/>"##,
        LABEL + plot
    );
    let _ = writeln!(
        svg,
        r##"<text x="{LABEL}" y="{:.1}" fill="#555555">0</text><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#555555">{}</text>"##,
        axis + 18.0,
        LABEL + plot,
        axis + 18.0,
        escape(&format!("{:.0} {}", top_value, unit.symbol()))
    );
    svg.push_str("</svg>\n");
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_row_and_well_formed() {
        let stats = Stats {
            min: 0.1,
            median: 0.2,
            max: 0.3,
        };
        let svg = bars(
            "T <1>",
            "sub",
            Unit::Ms,
            &[("twinwire", stats), ("other", stats)],
        );
        assert_eq!(svg.matches("<rect x=").count(), 2);
        assert!(svg.contains("T &lt;1&gt;") && svg.ends_with("</svg>\n"));
    }
}
