//! Lists the entries of a fatbinary, or of every fatbinary in an ELF
//! program's `.nv_fatbin`, and writes each entry's decompressed contents
//! when given a folder.
//!
//! ```sh
//! cargo run -p sim-fatbin --example fatbin_dump -- app [OUT_DIR]
//! ```

use std::process::ExitCode;

use sim_fatbin::{fatbins_in_section, nv_fatbin_section, Fatbin, FATBIN_MAGIC};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: fatbin_dump FILE [OUT_DIR]");
        return ExitCode::FAILURE;
    };
    match run(path, args.get(1).map(String::as_str)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: &str, out: Option<&str>) -> Result<(), Box<dyn std::error::Error>> {
    let bytes = std::fs::read(path)?;
    let fatbins = if bytes.get(..4) == Some(&FATBIN_MAGIC.to_le_bytes()[..]) {
        vec![(0, Fatbin::parse(&bytes)?)]
    } else {
        let section = nv_fatbin_section(&bytes)?.ok_or("no .nv_fatbin section")?;
        fatbins_in_section(section.data)?
    };
    for (n, (at, fb)) in fatbins.iter().enumerate() {
        println!(
            "fatbinary {n} at byte {at} of the section: {} bytes",
            fb.len()
        );
        for e in fb.entries() {
            let contents = e.contents()?;
            println!(
                "  entry {} {:?} sm_{} v{}.{} flags {:#x} {} stored {} -> {} bytes",
                e.index,
                e.kind,
                e.sm,
                e.version.0,
                e.version.1,
                e.flags,
                e.compression()?,
                e.payload_size,
                contents.len()
            );
            if let Some(dir) = out {
                let name = format!("{dir}/fatbin{n}.entry{}.sm_{}.{:?}", e.index, e.sm, e.kind);
                std::fs::write(name, &contents)?;
            }
        }
    }
    Ok(())
}
