//! simcli (skeleton).
use std::process::ExitCode;
fn main() -> ExitCode {
    ExitCode::SUCCESS
}
