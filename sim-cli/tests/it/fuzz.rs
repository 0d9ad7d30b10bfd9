//! Fuzz targets for sweep files (issue 28): whatever the text,
//! `sweep::parse` gives a sweep or an error naming the file (and a line of
//! it), never a panic; an accepted sweep has at most `MAX_RUNS` runs, and
//! its runs, generated lazily, are numbered in order and split into shards
//! that together hold each run once. A sweep whose axes multiply past the
//! limit is refused with the count, in the time its axes take to read.
//! Run longer with `tools/fuzz.sh 1800 20000 sim-cli fuzz_sweep_`
//! (docs/fuzzing.md).

use proptest::prelude::*;
use sim_cli::sweep::{self, Shard, SweepError, MAX_RUNS};

// The same text edits and configuration keys as sim-core's
// configuration-file fuzz targets.
#[path = "../../../sim-core/tests/it/text_edits.rs"]
mod text_edits;
use text_edits::{edit, keys};

/// Valid sweep files (those of docs/sweeps.md and the sim-cli tests).
const SEEDS: [&str; 4] = [
    "traces = [\"traces/sad16x16.ptx\", \"traces/audio_mix.ptx\"]\narchs = [\"sm_53\", \"sm_90\"]      # optional: each trace's own .target\nsms = 1\n[params]\nscheduler = [\"lrr\", \"gto\"]\nunits.int_alu.latency = [4, 6]\n",
    "traces = [\"workloads/reduce.json\"]\nprograms = [[\"./build/reduce\"], [\"./build/matmul\", \"512\"]]\nsms = 8\n[params]\nmemory.l2.latency = [291, 600]\nmemory.dram.latency = [670, 1000]\n",
    "traces = [\"a.ptx\", \"b.ptx\"]\narchs = [\"sm_90\"]\n[params]\nunits.int_alu.latency = [4, 6, 8]\nscheduler = [\"lrr\", \"gto\"]\n[params.icache]\nbytes = [0, 32768]\n",
    "traces = [\"t.ptx\"]\n[params]\nresident_warps = [1, 64, 256]\nschedulers = 4\nlimits.max_cycles = [100, 18446744073709551615]\n[params.units.fp32]\nlatency = [2, 4]\nlanes_per_sm = [64, 128]\n",
];

/// Lines `text` has (an error may name the line after the last).
fn lines(text: &str) -> usize {
    text.split('\n').count()
}

/// Parses `text`: an error names the file (and a line of it); an accepted
/// sweep's runs hold together.
fn sweep_holds(text: &str) {
    let s = match sweep::parse(text, "s.toml") {
        Err(SweepError::File { file, line, .. }) => {
            assert_eq!(file, "s.toml");
            assert!(line >= 1 && line <= lines(text), "line {line}");
            return;
        }
        Err(SweepError::Param { file, line, source }) => {
            assert_eq!(file, "s.toml");
            assert!(line >= 1 && line <= lines(text), "line {line}");
            assert!(source.to_string().starts_with("--set: "), "{source}");
            return;
        }
        Err(e) => panic!("not an error of a sweep file: {e}"),
        Ok(s) => s,
    };
    let n = s.len();
    assert!((1..=MAX_RUNS).contains(&n), "{n} runs");
    assert!(!s.inputs().is_empty());
    // The first runs, in order, each input one the file names.
    let mut k = 0;
    for run in s.runs(Shard::ALL).take(300) {
        assert_eq!(run.index, k);
        assert!(s.inputs().contains(&run.input));
        assert_eq!(run.sets.len(), run.layers.len());
        k += 1;
    }
    assert_eq!(k, n.min(300));
    // Shards: each takes its share, together every run once. A shard's
    // runs are walked only where it has few.
    for count in [1, 2, 7, n, n + 3, n.max(1) / 3 + 1, u64::MAX] {
        let total: u64 = (0..count.min(8))
            .map(|index| {
                let shard = Shard { index, count };
                let len = s.shard_len(shard) as u64;
                if len <= 64 {
                    let runs: Vec<u64> = s.runs(shard).map(|r| r.index).collect();
                    assert_eq!(runs.len() as u64, len);
                    assert!(runs.iter().all(|&i| shard.takes(i) && i < n));
                    assert!(runs.windows(2).all(|w| w[0] + count == w[1]));
                }
                len
            })
            .sum();
        if count <= 8 {
            assert_eq!(total, n, "{count} shards");
        }
    }
    // The last run exists and is the last.
    let last = Shard {
        index: n - 1,
        count: n,
    };
    let runs: Vec<u64> = s.runs(last).map(|r| r.index).collect();
    assert_eq!(runs, [n - 1]);
}

/// A TOML value of any shape, in range or far out of it.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0u64..5000).prop_map(|n| n.to_string()),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        2 => prop::sample::select(vec![
            "\"lrr\"", "\"gto\"", "\"oldest\"", "\"native\"", "\"hopper\"", "\"sm_90\"",
            "\"sm_\"", "\"\"", "true", "1.5", "18446744073709551615",
            "18446744073709551616", "-1", "4294967295", "[]", "{}", "\"a=b\"", "\"x\\\"y\"",
            "\"4294967295\"", "\" 7 \"", "1979-05-27",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{0,10}".prop_map(|s| format!("{:?}", s)),
    ]
}

/// A list of `n` values (`n` up to 600, so that three axes pass the limit).
fn list() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::collection::vec(value(), 0..6).prop_map(|v| format!("[{}]", v.join(", "))),
        1 => (1usize..600).prop_map(|n| {
            let v: Vec<String> = (0..n).map(|i| (i % 4000).to_string()).collect();
            format!("[{}]", v.join(","))
        }),
        1 => value(),
    ]
}

/// A line of a sweep file: inputs, archs, SMs, a `[params]` key, tables,
/// junk.
fn line(keys: Vec<String>) -> impl Strategy<Value = String> {
    let strings = proptest::collection::vec("[a-z./]{0,12}|\\PC{0,6}", 0..5).prop_map(|v| {
        let v: Vec<String> = v.iter().map(|s| format!("{s:?}")).collect();
        format!("[{}]", v.join(", "))
    });
    let archs = proptest::collection::vec(
        prop::sample::select(vec!["sm_90", "sm_53", "sm_13", "sm_99", "sm_", "x", ""]),
        0..4,
    )
    .prop_map(|v| format!("archs = {v:?}"));
    let key = prop::sample::select(keys);
    prop_oneof![
        2 => strings.clone().prop_map(|s| format!("traces = {s}")),
        1 => proptest::collection::vec(strings, 0..3)
            .prop_map(|v| format!("programs = [{}]", v.join(", "))),
        1 => archs,
        1 => value().prop_map(|v| format!("sms = {v}")),
        1 => Just("[params]".to_string()),
        6 => (key.clone(), list()).prop_map(|(k, l)| format!("{k} = {l}")),
        1 => (key, list()).prop_map(|(k, l)| match k.rsplit_once('.') {
            Some((t, leaf)) => format!("[params.{t}]\n{leaf} = {l}"),
            None => format!("[params]\n{k} = {l}"),
        }),
        1 => prop::sample::select(vec![
            "", "# c", "[", "[params", "[[params]]", "extra = 1", "params = 3",
            "params.x = [1]", "traces = \"one\"", "programs = [[]]", "sms = 0",
            "sms = 5000", "[params.units]", "\0", "\r",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{0,30}",
    ]
}

fn edit_char() -> impl Strategy<Value = char> {
    prop_oneof![
        prop::sample::select(vec![
            '=', '[', ']', '.', '"', '\n', '#', '0', '9', '-', ' ', ',', '{', '}'
        ]),
        any::<char>(),
    ]
}

proptest! {
    #[test]
    fn fuzz_sweep_arbitrary_text(text in "\\PC{0,200}", shard in "\\PC{0,8}") {
        sweep_holds(&text);
        if let Ok(s) = Shard::parse(&shard) {
            assert!(s.index < s.count);
        }
    }

    #[test]
    fn fuzz_sweep_token_soup(
        first in line(keys()),
        ls in proptest::collection::vec(line(keys()), 0..10),
    ) {
        // Mostly with an input, so the axes are reached.
        let text = format!("traces = [\"t.ptx\"]\n{first}\n{}", ls.join("\n"));
        sweep_holds(&text);
        sweep_holds(&format!("{first}\n{}", ls.join("\n")));
    }

    #[test]
    fn fuzz_sweep_mutated_files(
        which in 0usize..SEEDS.len(),
        edits in proptest::collection::vec((any::<u8>(), any::<u32>(), edit_char()), 0..=5),
        extra in proptest::option::of(line(keys())),
    ) {
        let mut text = edit(SEEDS[which], &edits);
        if let Some(l) = extra {
            text.push('\n');
            text.push_str(&l);
        }
        sweep_holds(&text);
    }
}

// ---- `simcli merge` (issue 28's leftover): CSV files of runs ----

/// Valid shard CSVs: a header whose first column is `run`, rows by run.
fn shard_csv(header: &str, runs: &[u64], tag: u8) -> String {
    let mut s = format!("{header}\n");
    for r in runs {
        s.push_str(&format!("{r},t{tag}.ptx,{}\n", r * 7 + u64::from(tag)));
    }
    s
}

/// Merges `files`: an error names one of them; a merge has the first
/// file's header, every row once, runs in order, each run's rows from one
/// file in that file's order, and the same bytes whatever the files' order.
fn merge_holds(files: &[(String, Vec<u8>)]) {
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let out = match sweep::merge(files) {
        Err(SweepError::Csv { file, .. }) | Err(SweepError::Merge { file, .. }) => {
            assert!(names.contains(&file.as_str()) || file == "(none)", "{file}");
            return;
        }
        Err(e) => panic!("not an error of a merge: {e}"),
        Ok(out) => out,
    };
    let mut r = csv::ReaderBuilder::new().from_reader(out.as_slice());
    let header = r.headers().expect("the merge's header").clone();
    let mut first = csv::ReaderBuilder::new().from_reader(files[0].1.as_slice());
    assert_eq!(&header, first.headers().expect("accepted, so readable"));
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("a merged row")).collect();
    let total: usize = files
        .iter()
        .map(|(_, b)| {
            csv::ReaderBuilder::new()
                .from_reader(b.as_slice())
                .records()
                .count()
        })
        .sum();
    assert_eq!(rows.len(), total);
    let runs: Vec<u64> = rows
        .iter()
        .map(|x| x[0].parse().expect("a run number"))
        .collect();
    assert!(runs.windows(2).all(|w| w[0] <= w[1]), "{runs:?}");
    let mut reversed = files.to_vec();
    reversed.reverse();
    assert_eq!(
        sweep::merge(&reversed).expect("the same files, reversed"),
        out
    );
}

fn shard_files() -> impl Strategy<Value = Vec<(String, Vec<u8>)>> {
    (1usize..=4, 0u64..40, any::<u64>()).prop_map(|(count, n, seed)| {
        // Runs 0..n dealt to the files by a seeded hash: each run in one file.
        (0..count)
            .map(|i| {
                let runs: Vec<u64> = (0..n)
                    .filter(|r| {
                        (r.wrapping_mul(0x9e37_79b9).wrapping_add(seed) % count as u64) == i as u64
                    })
                    .collect();
                let text = shard_csv("run,input,cycles", &runs, i as u8);
                (format!("shard{i}.csv"), text.into_bytes())
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn fuzz_merge_shards_and_mutations(
        files in shard_files(),
        which in any::<usize>(),
        edits in proptest::collection::vec((any::<u8>(), any::<u32>(), edit_char()), 0..=4),
    ) {
        merge_holds(&files);
        // One file edited: a header, a number or a quote broken, or a run
        // moved into another file's range.
        let mut files = files;
        let k = which % files.len();
        let text = String::from_utf8_lossy(&files[k].1).into_owned();
        files[k].1 = edit(&text, &edits).into_bytes();
        merge_holds(&files);
    }

    #[test]
    fn fuzz_merge_arbitrary_bytes(
        a in proptest::collection::vec(any::<u8>(), 0..120),
        b in "run[,a-z0-9\"\n]{0,80}",
    ) {
        merge_holds(&[("a.csv".to_string(), a), ("b.csv".to_string(), b.into_bytes())]);
    }
}
