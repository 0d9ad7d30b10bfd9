//! Conformance vectors (`shared/conformance/FORMAT.md`): parse, run, compare.
//! No file I/O here: callers hand in the text.
