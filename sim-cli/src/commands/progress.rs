//! Feedback for long runs: a spinner (or a bar, for sweeps) on standard
//! error once work has gone on for about a second, only on a terminal and
//! never under CI; and `RUST_LOG` through tracing-subscriber.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

/// How long work goes on before a progress display appears.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// Whether progress may be drawn: standard error is a terminal and `CI` is unset.
fn wanted() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// Installs a tracing subscriber writing to standard error when `RUST_LOG`
/// is set (e.g. `RUST_LOG=sim_core=debug`); otherwise none, so the
/// simulator's events cost nothing.
pub fn init_logging() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .try_init();
    }
}

/// A progress display of `total` steps (0: a spinner) that shows itself
/// after [`QUIET_FOR`] while `work` runs on this thread. `work` gets a
/// handle to advance it.
pub fn with_progress<T: Send>(message: &str, total: u64, work: impl FnOnce(&Progress) -> T) -> T {
    let bar = if total == 0 {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::new(total)
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    let style = if total == 0 {
        ProgressStyle::with_template("{spinner} {msg} {elapsed}")
    } else {
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} {elapsed} (eta {eta})")
    };
    if let Ok(s) = style {
        bar.set_style(s);
    }
    bar.set_message(message.to_string());
    let progress = Progress { bar: bar.clone() };
    if !wanted() {
        return work(&progress);
    }
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let shown = bar.clone();
        scope.spawn(move || {
            if finished.recv_timeout(QUIET_FOR).is_err() {
                shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
                let _ = finished.recv();
                shown.finish_and_clear();
            }
        });
        let out = work(&progress);
        let _ = done.send(());
        out
    })
}

/// Advances a progress display.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// One more step done.
    pub fn step(&self) {
        self.bar.inc(1);
    }
}
