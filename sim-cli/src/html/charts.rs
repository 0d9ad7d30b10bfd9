//! The charts, drawn by plotters into SVG strings that the page inlines:
//! horizontal bars (stall reasons, memory levels, occupancy, hot lines),
//! lines with points (a sweep's parameter against cycles) and a heat map
//! (issue activity per SM over time). Text is measured by plotters' built-in
//! estimate (no font files are read), and the browser draws it.

use super::page::{num, HtmlError};
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordu32};
use plotters::coord::Shift;
use plotters::prelude::*;

const WIDTH: u32 = 860;

fn plot_err<E: std::fmt::Display>(chart: &str) -> impl Fn(E) -> HtmlError + '_ {
    move |e| HtmlError::Plot {
        chart: chart.to_string(),
        message: e.to_string(),
    }
}

/// A chart whose y axis has `n` segments.
type Segmented<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, SegmentedCoord<RangedCoordu32>>>;

/// `root` filled white, and on it a chart titled `title` over `0..x_end`
/// and the `n` segments `0..=n-1` (the bar charts' frame).
fn segmented_chart<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    label_w: u32,
    x_end: f64,
    n: u32,
) -> Result<Segmented<'a, 'b>, HtmlError> {
    let err = plot_err(title);
    root.fill(&WHITE).map_err(&err)?;
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(label_w)
        .build_cartesian_2d(0.0..x_end, (0..n - 1).into_segmented())
        .map_err(&err)
}

/// The colour of series `i`.
fn colour(i: usize) -> RGBAColor {
    Palette99::pick(i).to_rgba()
}

/// Wraps an SVG in the element the page styles.
fn wrap(svg: String) -> String {
    format!("<div class=\"chart\">{svg}</div>")
}

/// Horizontal bars, one per `(label, value)`, top to bottom in the given
/// order; the x axis is described by `unit`.
pub fn hbar(title: &str, bars: &[(String, f64)], unit: &str) -> Result<String, HtmlError> {
    let err = plot_err(title);
    // At least two slots: a discrete axis of one value draws nothing.
    let n = u32::try_from(bars.len().max(2)).unwrap_or(u32::MAX);
    let max = bars.iter().map(|b| b.1).fold(0.0f64, f64::max);
    let top = if max > 0.0 { max * 1.05 } else { 1.0 };
    let longest = bars.iter().map(|b| b.0.chars().count()).max().unwrap_or(4);
    let label_w = u32::try_from(longest.clamp(4, 40) * 8 + 10).unwrap_or(330);
    let height = 100 + 26 * n.max(3);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let mut chart = segmented_chart(&root, title, label_w, top, n)?;
        // A discrete axis over 0..n-1 has the n segments 0..=n-1; the first
        // bar is drawn at the top, in segment n-1.
        let at = |i: usize| n - 1 - u32::try_from(i).unwrap_or(0).min(n - 1);
        let label = |v: &SegmentValue<u32>| match v {
            SegmentValue::CenterOf(s) => bars
                .get((n - 1 - (*s).min(n - 1)) as usize)
                .map_or_else(String::new, |b| b.0.clone()),
            _ => String::new(),
        };
        let x_label = |x: &f64| num(*x);
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n as usize)
            .y_label_formatter(&label)
            .x_label_formatter(&x_label)
            .x_desc(unit)
            .draw()
            .map_err(&err)?;
        let rects = bars.iter().enumerate().map(|(i, b)| {
            let i = at(i);
            let mut r = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i)),
                    (b.1, SegmentValue::Exact(i + 1)),
                ],
                colour(0).filled(),
            );
            r.set_margin(3, 3, 0, 0);
            r
        });
        chart.draw_series(rects).map_err(&err)?;
        root.present().map_err(&err)?;
    }
    Ok(wrap(svg))
}

/// One line of points.
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// The points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// Lines with their points; x tick labels from `x_names` when the x values
/// are category indices.
pub fn lines(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    x_names: Option<&[String]>,
) -> Result<String, HtmlError> {
    let err = plot_err(title);
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (mut x0, mut x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    let pad = if x1 > x0 { (x1 - x0) * 0.05 } else { 0.5 };
    let ymax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    let top = if ymax > 0.0 { ymax * 1.1 } else { 1.0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(x0 - pad..x1 + pad, 0.0..top)
            .map_err(&err)?;
        let y_label = |y: &f64| num(*y);
        let name_of = |x: &f64| match x_names {
            Some(names) if (x - x.round()).abs() < 1e-9 && *x >= 0.0 => {
                names.get(x.round() as usize).cloned().unwrap_or_default()
            }
            Some(_) => String::new(),
            None => num(*x),
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_desc)
            .y_desc(y_desc)
            .y_label_formatter(&y_label)
            .x_label_formatter(&name_of);
        if let Some(names) = x_names {
            mesh.x_labels(names.len().max(2) * 2 + 1);
        }
        mesh.draw().map_err(&err)?;
        draw_lines(&mut chart, series, &err)?;
        if series.len() > 1 {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(&err)?;
        }
        root.present().map_err(&err)?;
    }
    Ok(wrap(svg))
}

type Chart2d<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn draw_lines(
    chart: &mut Chart2d,
    series: &[Series],
    err: &impl Fn(DrawingAreaErrorKind<std::io::Error>) -> HtmlError,
) -> Result<(), HtmlError> {
    for (i, s) in series.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
            .map_err(err)?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, c.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// A heat map: one row per entry of `rows` (named by `row_names`), one cell
/// per bucket of `bucket` cycles, darker for more.
pub fn heat(
    title: &str,
    row_names: &[String],
    rows: &[Vec<f64>],
    bucket: f64,
) -> Result<String, HtmlError> {
    let err = plot_err(title);
    let n = u32::try_from(rows.len().max(2)).unwrap_or(u32::MAX);
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let max = rows.iter().flatten().copied().fold(0.0f64, f64::max);
    let end = cols as f64 * bucket;
    let mut svg = String::new();
    {
        let height = 90 + 22 * n;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let mut chart = segmented_chart(&root, title, 70, end, n)?;
        let label = |v: &SegmentValue<u32>| match v {
            SegmentValue::CenterOf(i) => row_names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        let x_label = |x: &f64| num(*x);
        chart
            .configure_mesh()
            .disable_mesh()
            .y_labels(n as usize)
            .y_label_formatter(&label)
            .x_label_formatter(&x_label)
            .x_desc("cycle")
            .draw()
            .map_err(&err)?;
        let cells = rows.iter().enumerate().flat_map(|(r, row)| {
            let r = u32::try_from(r).unwrap_or(u32::MAX);
            row.iter().enumerate().map(move |(c, &v)| {
                let t = if max > 0.0 { v / max } else { 0.0 };
                // White (idle) to dark blue (the busiest bucket).
                let shade = |full: f64, dark: f64| (full - (full - dark) * t).round() as u8;
                let fill = RGBColor(shade(255.0, 8.0), shade(255.0, 48.0), shade(255.0, 107.0));
                Rectangle::new(
                    [
                        (c as f64 * bucket, SegmentValue::Exact(r)),
                        ((c + 1) as f64 * bucket, SegmentValue::Exact(r + 1)),
                    ],
                    fill.filled(),
                )
            })
        });
        chart.draw_series(cells).map_err(&err)?;
        root.present().map_err(&err)?;
    }
    Ok(wrap(svg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_svg_with_their_labels() {
        let svg = hbar(
            "t",
            &[("long_scoreboard".into(), 10.0), ("wait".into(), 3.0)],
            "cycles",
        )
        .unwrap();
        assert!(svg.contains("<svg"), "{svg}");
        assert!(svg.contains("long_scoreboard"));
        assert!(svg.contains("wait"));
        assert!(svg.matches("<rect").count() >= 3);
    }

    #[test]
    fn lines_and_heat_draw() {
        let s = [Series {
            name: "a".into(),
            points: vec![(1.0, 5.0), (2.0, 7.0)],
        }];
        assert!(lines("t", "x", "y", &s, None)
            .unwrap()
            .contains("<polyline"));
        let h = heat("h", &["SM 0".into()], &[vec![0.0, 2.0, 4.0]], 10.0).unwrap();
        assert!(h.contains("SM 0"));
    }
}
