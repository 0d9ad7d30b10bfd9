//! Launch files (`docs/launch-format.md`) read for Python: the same reader
//! as `simcli run`, so buffers (files, fills, the seeded random ones) and
//! expected outputs are the bytes the simulator's own runs use.

use crate::err;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use sim_module::launch::ParamValue;
use sim_module::Launch;

/// A parameter as `(kind, value)`: `("buffer", name)`, `("u32", 5)`, a
/// float as its bits (`("f32", 0x3f800000)`), `("b16", 65535)`,
/// `("bytes", b"...")`.
fn param<'py>(py: Python<'py>, l: &Launch, p: &ParamValue) -> PyResult<Bound<'py, PyAny>> {
    let pair = |k: &str, v: Bound<'py, PyAny>| (k, v).into_pyobject(py).map(|t| t.into_any());
    let int = |k: &str, n: i128| pair(k, n.into_pyobject(py)?.into_any());
    match p {
        ParamValue::Buffer(b) => {
            let name = l.buffers.get(*b).map_or("", |x| x.name.as_str());
            pair("buffer", name.into_pyobject(py)?.into_any())
        }
        ParamValue::U8(x) => int("u8", (*x).into()),
        ParamValue::S8(x) => int("s8", (*x).into()),
        ParamValue::U16(x) => int("u16", (*x).into()),
        ParamValue::S16(x) => int("s16", (*x).into()),
        ParamValue::U32(x) => int("u32", (*x).into()),
        ParamValue::S32(x) => int("s32", (*x).into()),
        ParamValue::U64(x) => int("u64", (*x).into()),
        ParamValue::S64(x) => int("s64", (*x).into()),
        ParamValue::F32(x) => int("f32", x.to_bits().into()),
        ParamValue::F64(x) => int("f64", x.to_bits().into()),
        ParamValue::Bits(x, n) => int(&format!("b{}", 8 * u32::from(*n)), (*x).into()),
        ParamValue::Bytes(b) => pair("bytes", PyBytes::new(py, b).into_any()),
    }
}

/// Reads the launch file at `path`: a dict of `ptx` (its path), `entry`,
/// `grid`, `block`, `dynamic_shared`, `buffers` (name to initial bytes, in
/// file order), `params` (see [`param`]), `outputs` (names) and `expected`
/// (name to bytes).
#[pyfunction]
pub fn read_launch<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let l = Launch::read(std::path::Path::new(path)).map_err(|e| err(format!("{path}: {e}")))?;
    let bufs = l.load_buffers().map_err(|e| err(format!("{path}: {e}")))?;
    let expected = l.load_expected().map_err(|e| err(format!("{path}: {e}")))?;
    let d = PyDict::new(py);
    d.set_item("ptx", l.ptx.to_string_lossy().to_string())?;
    d.set_item("entry", &l.entry)?;
    d.set_item("grid", l.grid.to_vec())?;
    d.set_item("block", l.block.to_vec())?;
    d.set_item("dynamic_shared", l.dynamic_shared)?;
    let buffers = PyList::empty(py);
    for (b, bytes) in l.buffers.iter().zip(&bufs) {
        buffers.append((&b.name, PyBytes::new(py, bytes)))?;
    }
    d.set_item("buffers", buffers)?;
    let params = PyList::empty(py);
    for p in &l.params {
        params.append(param(py, &l, p)?)?;
    }
    d.set_item("params", params)?;
    let names = |i: usize| l.buffers.get(i).map_or(String::new(), |b| b.name.clone());
    d.set_item(
        "outputs",
        l.outputs.iter().map(|&i| names(i)).collect::<Vec<_>>(),
    )?;
    let exp = PyDict::new(py);
    for (i, bytes) in &expected {
        exp.set_item(names(*i), PyBytes::new(py, bytes))?;
    }
    d.set_item("expected", exp)?;
    Ok(d)
}
