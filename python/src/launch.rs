//! `Module`: a PTX module on a simulated device of its own
//! (`sim_kernel::Device`), whose kernels the Python side launches with
//! numpy arrays and scalars. The Python wrapper (`ptx_sm_sim.Module`)
//! classifies each argument into a tagged tuple; here each is bound to the
//! kernel's `.param` by the launch files' rules
//! (`sim_module::launch::ParamValue::binds_to`), arrays are placed in
//! device memory, and the outputs come back as bytes.

use crate::err;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sim_core::config_file::{self, ConfigLayer};
use sim_core::SchedPolicy;
use sim_kernel::{Device, ModuleId, ParamSlot, RunOptions};
use sim_module::launch::{declared, ParamValue};
use sim_module::{Param, PtxType};

/// One argument as the Python wrapper hands it over.
#[derive(FromPyObject)]
enum Arg {
    /// `(bytes or None, nbytes, copy_back, description)`: an array's
    /// contents (None: `Out`, the device memory starts zeroed).
    Array(Option<Py<PyBytes>>, u64, bool, String),
    /// `(kind, value, description)`: `int` (a Python int), `float`,
    /// `bytes`, or a numpy scalar: `s8`..`u64`, `f16`/`f32`/`f64` (their
    /// bits as an int).
    Scalar(String, Py<PyAny>, String),
}

/// A PTX module loaded on a device of its own.
#[pyclass(unsendable, module = "ptx_sm_sim._native")]
pub struct Module {
    device: Device,
    id: ModuleId,
}

/// The run options of a launch: `arch`'s preset, then the TOML `config`
/// (file name and text), `sms` (else the target's whole GPU, as `simcli
/// run` runs a launch file) and host `threads` (else every core).
fn run_options(
    arch: &str,
    config: Option<(String, String)>,
    sms: Option<u32>,
    threads: Option<usize>,
) -> PyResult<RunOptions> {
    let target = crate::target(arch)?;
    let mut layers = Vec::new();
    if let Some((name, text)) = &config {
        layers.push(ConfigLayer::parse(text, name).map_err(err)?);
    }
    let (config, policy) = config_file::build(&layers, target, SchedPolicy::Lrr);
    // The memory figures: the preset with the file's `[memory]` keys.
    let memory = sim_kernel::MemConfig::configured(config.target, &layers);
    let sms = sms.unwrap_or(memory.sms);
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    config_file::check_counts(u64::from(sms), threads as u64).map_err(err)?;
    let mut opts = RunOptions::new(config, policy, sms);
    opts.threads = threads;
    opts.memory = memory;
    Ok(opts)
}

/// Whether `n` fits a parameter of `size` bytes: a `.sN` signed, a
/// `.uN`/`.bN` read either way (nvcc declares a C `int` parameter `.u32`,
/// so -1 binds to it).
fn fits(n: i128, size: u64, signed: bool) -> bool {
    let bits = 8 * size.min(8) as u32;
    let hi = if signed { bits - 1 } else { bits };
    -(1i128 << (bits - 1)) <= n && n < (1i128 << hi)
}

/// A Python int for parameter `p`: any integer or bit type it fits.
fn int_value(n: i128, p: &Param) -> Result<ParamValue, String> {
    use PtxType::*;
    if p.array.is_some() {
        return Err("an array parameter (a struct) takes bytes".into());
    }
    let signed = matches!(p.ty, S8 | S16 | S32 | S64);
    if !matches!(p.ty, U8 | U16 | U32 | U64 | B8 | B16 | B32 | B64) && !signed {
        return Err("an int binds only to an integer or bit type".into());
    }
    if !fits(n, p.size, signed) {
        return Err(format!("{n} does not fit {}", declared(p)));
    }
    // The low bytes, whatever the signedness.
    Ok(ParamValue::Bits(n as u64, p.size as u8))
}

/// A Python float for parameter `p`: `.f32` (rounded) or `.f64`.
fn float_value(x: f64, p: &Param) -> Result<ParamValue, String> {
    match (p.ty, p.array) {
        (PtxType::F32, None) => Ok(ParamValue::F32(x as f32)),
        (PtxType::F64, None) => Ok(ParamValue::F64(x)),
        _ => Err("a float binds only to .f32 or .f64".into()),
    }
}

/// A numpy scalar of `kind` (its value, or its bits for a float).
fn numpy_value(kind: &str, v: &Bound<'_, PyAny>) -> PyResult<ParamValue> {
    let int = || v.extract::<i128>();
    Ok(match kind {
        "s8" => ParamValue::S8(int()? as i8),
        "u8" => ParamValue::U8(int()? as u8),
        "s16" => ParamValue::S16(int()? as i16),
        "u16" => ParamValue::U16(int()? as u16),
        "s32" => ParamValue::S32(int()? as i32),
        "u32" => ParamValue::U32(int()? as u32),
        "s64" => ParamValue::S64(int()? as i64),
        "u64" => ParamValue::U64(int()? as u64),
        "f16" => ParamValue::Bits(int()? as u64, 2),
        "f32" => ParamValue::F32(f32::from_bits(int()? as u32)),
        "f64" => ParamValue::F64(f64::from_bits(int()? as u64)),
        _ => return Err(err(format!("unknown argument kind '{kind}'"))),
    })
}

/// The value of scalar argument `kind`/`v` bound to `p`, or why not.
fn scalar_value(kind: &str, v: &Bound<'_, PyAny>, p: &Param) -> PyResult<Result<Vec<u8>, String>> {
    let value = match kind {
        "int" => match v.extract::<i128>() {
            Ok(n) => int_value(n, p),
            Err(_) => Err("the int does not fit 128 bits".into()),
        },
        "float" => float_value(v.extract::<f64>()?, p),
        "bytes" => Ok(ParamValue::Bytes(v.cast::<PyBytes>()?.as_bytes().to_vec())),
        // Half precision binds to `.f16` or `.b16` alone: as bits it would
        // also bind to a `.u16`.
        "f16" if !(matches!(p.ty, PtxType::F16 | PtxType::B16) && p.array.is_none()) => {
            Err("a float16 binds only to .f16 or .b16".into())
        }
        _ => Ok(numpy_value(kind, v)?),
    };
    Ok(value.and_then(|pv| pv.binds_to(p).map(|()| pv.bytes(&[]))))
}

/// An argument bound and placed: its bytes in the parameter buffer, and
/// for an array its device address and whether it comes back.
struct Placed {
    bytes: Vec<u8>,
    array: Option<(u64, u64, bool)>,
}

impl Module {
    /// The parameters of the `.entry` named `entry`, with their
    /// declarations (the device's own parse of the module).
    fn entry(&self, entry: &str) -> PyResult<Vec<ParamSlot>> {
        if !self.device.entries(self.id).iter().any(|e| e == entry) {
            return Err(err(format!(
                "no kernel named '{entry}' (the module has: {})",
                self.device.entries(self.id).join(", ")
            )));
        }
        self.device.params(self.id, entry).map_err(err)
    }

    /// Binds argument `i` to parameter `p`; an array is allocated and
    /// (unless `Out`) written.
    fn bind(&mut self, py: Python<'_>, i: usize, a: &Arg, p: &Param) -> PyResult<Placed> {
        let mismatch = |desc: &str, why: String| {
            err(format!(
                "argument {i} ({desc}) does not bind to parameter {} ({}): {why}",
                p.name,
                declared(p)
            ))
        };
        match a {
            Arg::Array(data, n, back, desc) => {
                if let Err(why) = ParamValue::Buffer(0).binds_to(p) {
                    return Err(mismatch(desc, why));
                }
                // A zero-byte array still gets an address of its own.
                let addr = self.device.malloc((*n).max(1)).map_err(err)?;
                if let Some(d) = data {
                    if let Err(e) = self.device.write(addr, d.as_bytes(py)) {
                        let _ = self.device.free(addr);
                        return Err(err(e));
                    }
                }
                Ok(Placed {
                    bytes: addr.to_le_bytes().to_vec(),
                    array: Some((addr, *n, *back)),
                })
            }
            Arg::Scalar(kind, v, desc) => match scalar_value(kind, v.bind(py), p)? {
                Ok(bytes) => Ok(Placed { bytes, array: None }),
                Err(why) => Err(mismatch(desc, why)),
            },
        }
    }

    /// Binds every argument and packs the parameter buffer; allocations
    /// made are in `arrays` (freed by the caller whatever happens).
    fn pack(
        &mut self,
        py: Python<'_>,
        entry: &str,
        args: &[Arg],
        arrays: &mut Vec<(u64, u64, bool)>,
        slots: &mut Vec<Option<usize>>,
    ) -> PyResult<Vec<u8>> {
        let declared_params = self.entry(entry)?;
        let params: Vec<Param> = declared_params.into_iter().map(|s| s.decl).collect();
        if params.len() != args.len() {
            let names: Vec<String> = params
                .iter()
                .map(|p| format!("{} {}", p.name, declared(p)))
                .collect();
            return Err(err(format!(
                "{entry} takes {} parameters ({}); {} arguments given",
                params.len(),
                names.join(", "),
                args.len()
            )));
        }
        let size = params.iter().map(|p| p.offset + p.size).max().unwrap_or(0);
        let mut buf = vec![0u8; size as usize];
        for (i, (a, p)) in args.iter().zip(&params).enumerate() {
            let b = self.bind(py, i, a, p)?;
            slots.push(b.array.map(|x| {
                arrays.push(x);
                arrays.len() - 1
            }));
            let at = p.offset as usize;
            buf[at..at + b.bytes.len()].copy_from_slice(&b.bytes);
        }
        Ok(buf)
    }
}

/// What a launch hands back to Python: the report as JSON, per argument
/// the bytes to copy back, and the device `printf` output.
type LaunchOut<'py> = (
    String,
    Vec<Option<Bound<'py, PyBytes>>>,
    Bound<'py, PyBytes>,
);

/// The report of a launch as JSON.
fn report_json(l: &sim_kernel::device::Launched, opts: &RunOptions) -> PyResult<String> {
    let t = &l.timed;
    let v = serde_json::json!({
        "arch": opts.config.target.to_string(),
        "cycles": t.cycles,
        "warps": l.warps,
        "instructions": l.instructions,
        "sms": opts.sms,
        "sms_used": t.sms_used,
        "clock_span": t.clock_span,
        "sampled": t.sampled.as_ref().map(|s| serde_json::json!({
            "timed_sms": s.timed_sms,
            "timed_blocks": s.timed_blocks,
            "block_cycles": s.block_cycles,
            "ci95": s.ci95,
        })),
        "stats": serde_json::to_value(&t.stats).map_err(err)?,
        "printf_dropped": l.printf_dropped,
    });
    serde_json::to_string(&v).map_err(err)
}

#[pymethods]
impl Module {
    /// Loads PTX `text` (named `name` in errors) on a fresh device.
    #[new]
    fn new(text: &str, name: &str) -> PyResult<Self> {
        let mut device = Device::new(run_options("sm_90", None, None, Some(1))?);
        let id = device.load_module(name, text).map_err(err)?;
        Ok(Module { device, id })
    }

    /// The kernels, in file order.
    fn entries(&self) -> Vec<String> {
        self.device.entries(self.id)
    }

    /// Kernel `entry`'s parameters: (name, declared type, offset, size).
    fn params(&self, entry: &str) -> PyResult<Vec<(String, String, u64, u64)>> {
        Ok(self
            .entry(entry)?
            .iter()
            .map(|s| (s.name.clone(), declared(&s.decl), s.offset, s.size))
            .collect())
    }

    /// The bytes of the module's `.global` or `.const` variable `name`.
    fn read_symbol<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let s = self
            .device
            .symbol(self.id, name)
            .ok_or_else(|| err(format!("no .global or .const variable named '{name}'")))?;
        let mut out = vec![0u8; s.size as usize];
        self.device
            .read_symbol(self.id, name, 0, &mut out)
            .map_err(err)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Writes `data` at the start of the `.global` or `.const` variable `name`.
    fn write_symbol(&mut self, name: &str, data: Vec<u8>) -> PyResult<()> {
        self.device
            .write_symbol(self.id, name, 0, &data)
            .map_err(err)
    }

    /// Runs kernel `entry`; returns the report as JSON, per argument the
    /// bytes to copy back (None for scalars and `In` arrays), and what the
    /// kernel's device `printf` printed.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (entry, grid, block, args, dynamic_shared, arch, config, sms, threads))]
    fn launch<'py>(
        &mut self,
        py: Python<'py>,
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: Vec<Arg>,
        dynamic_shared: u32,
        arch: &str,
        config: Option<(String, String)>,
        sms: Option<u32>,
        threads: Option<usize>,
    ) -> PyResult<LaunchOut<'py>> {
        let opts = run_options(arch, config, sms, threads)?;
        let mut arrays = Vec::new();
        let mut slots = Vec::new();
        let result = self
            .pack(py, entry, &args, &mut arrays, &mut slots)
            .and_then(|params| {
                self.device.set_options(opts.clone());
                self.device
                    .launch(self.id, entry, grid, block, dynamic_shared, &params)
                    .map_err(err)
            })
            .and_then(|l| {
                let mut back = Vec::new();
                for &(addr, n, copy) in &arrays {
                    back.push(if copy {
                        let mut out = vec![0u8; n as usize];
                        self.device.read(addr, &mut out).map_err(err)?;
                        Some(out)
                    } else {
                        None
                    });
                }
                Ok((report_json(&l, &opts)?, back, l.printf))
            });
        // Freed whatever happened (a broken device refuses: it is dead).
        for &(addr, _, _) in &arrays {
            let _ = self.device.free(addr);
        }
        let (json, mut back, printf) = result?;
        let out = slots
            .iter()
            .map(|s| {
                s.and_then(|k| back.get_mut(k).and_then(Option::take))
                    .map(|b| PyBytes::new(py, &b))
            })
            .collect();
        Ok((json, out, PyBytes::new(py, &printf)))
    }
}
