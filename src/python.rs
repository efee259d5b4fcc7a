//! The PyO3 binding: the only file that knows Python. It converts plain data in and out and maps
//! every core error to one Python exception class; panics become `InternalError`, never an abort.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyCapsule, PyCapsuleMethods, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};

use crate::diagnostics::{CompileError, Rendered};
use crate::env::{
    AssumedBinding, Assumption, Binding, Const, Env, FunctionCode, FunctionSource, Hidden,
};
use crate::frontend::Input;
use crate::host::array_interface::ArrayInterface;
use crate::host::stack::on_large_stack;
use crate::pipeline::{self, Compiled, Options, Request};
use crate::static_module::imports::{ForeignModule, Imports};
use crate::static_module::{self, Outcome};

// Named as the package exports them (`array_vectorize.VectorizationError` in a traceback).
create_exception!(
    array_vectorize,
    VectorizationError,
    PyValueError,
    "The function cannot be vectorized exactly (D10)."
);
create_exception!(
    array_vectorize,
    InternalError,
    PyRuntimeError,
    "A bug in array-vectorize's compiler; please report it."
);
create_exception!(
    array_vectorize._core,
    DeferredError,
    PyValueError,
    "Static compilation needs the live function."
);

/// Runs `f`, turning a panic into `InternalError`.
fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(InternalError::new_err(format!(
                "array-vectorize compiler panicked: {msg}"
            )))
        }
    }
}

fn const_from_py(obj: &Bound<'_, PyAny>) -> Option<Const> {
    if obj.is_instance_of::<PyBool>() {
        return obj.extract::<bool>().ok().map(Const::Bool);
    }
    if obj.is_instance_of::<PyInt>() {
        let i: i128 = obj.extract().ok()?;
        return (i.unsigned_abs() < (1u128 << 64)).then_some(Const::Int(i));
    }
    if obj.is_instance_of::<PyFloat>() {
        return obj.extract::<f64>().ok().map(Const::Float);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| const_from_py(&x))
            .collect::<Option<Vec<_>>>()
            .map(Const::Tuple);
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|x| const_from_py(&x))
            .collect::<Option<Vec<_>>>()
            .map(Const::List);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return d
            .iter()
            .map(|(k, v)| Some((const_from_py(&k)?, const_from_py(&v)?)))
            .collect::<Option<Vec<_>>>()
            .map(Const::Dict);
    }
    None
}

fn const_to_py<'py>(py: Python<'py>, c: &Const) -> PyResult<Bound<'py, PyAny>> {
    Ok(match c {
        Const::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Const::Int(i) => i.into_pyobject(py)?.into_any(),
        Const::Float(f) => PyFloat::new(py, *f).into_any(),
        Const::Tuple(items) => {
            let v: Vec<Bound<'py, PyAny>> = items
                .iter()
                .map(|x| const_to_py(py, x))
                .collect::<PyResult<_>>()?;
            PyTuple::new(py, v)?.into_any()
        }
        Const::List(items) => {
            let v: Vec<Bound<'py, PyAny>> = items
                .iter()
                .map(|x| const_to_py(py, x))
                .collect::<PyResult<_>>()?;
            PyList::new(py, v)?.into_any()
        }
        Const::Dict(entries) => {
            let d = PyDict::new(py);
            for (k, v) in entries {
                d.set_item(const_to_py(py, k)?, const_to_py(py, v)?)?;
            }
            d.into_any()
        }
    })
}

fn env_from_py(d: &Bound<'_, PyDict>) -> PyResult<Env> {
    let mut env = Env::new();
    for (k, v) in d.iter() {
        let name: String = k.extract()?;
        let t = v
            .cast::<PyTuple>()
            .map_err(|_| PyValueError::new_err(format!("env[{name:?}] must be a tuple")))?;
        let tag: String = t.get_item(0)?.extract()?;
        let binding = match tag.as_str() {
            "const" => match const_from_py(&t.get_item(1)?) {
                Some(c) => Binding::Const(c),
                None => Binding::Unsupported("a value out of the representable range".into()),
            },
            "math" => Binding::MathModule,
            "numpy" => Binding::NumpyModule,
            "math_member" => Binding::MathMember(t.get_item(1)?.extract()?),
            "numpy_member" => Binding::NumpyMember(t.get_item(1)?.extract()?),
            "builtin" => Binding::Builtin(t.get_item(1)?.extract()?),
            "function" => Binding::Function(Box::new(function_from_py(t)?)),
            "classmethod" => Binding::ClassMethod(Box::new(function_from_py(t)?)),
            "bisect_module" => Binding::BisectModule,
            "bisect" => Binding::Bisect(t.get_item(1)?.extract()?),
            "numbers_module" => Binding::NumbersModule,
            "numbers_class" => Binding::NumbersClass(t.get_item(1)?.extract()?),
            "namespace" => Binding::Namespace(env_from_py(t.get_item(1)?.cast::<PyDict>()?)?),
            "array" => Binding::Array,
            "enum" => Binding::Enum(t.get_item(1)?.extract()?),
            "object" => Binding::Object(t.get_item(1)?.extract()?),
            "exception" => Binding::ExceptionClass(t.get_item(1)?.extract()?),
            "callable" => Binding::OpaqueCallable(t.get_item(1)?.extract()?),
            "namedtuple" => {
                Binding::NamedTuple(t.get_item(1)?.extract()?, t.get_item(2)?.extract()?)
            }
            "unsupported" => Binding::Unsupported(t.get_item(1)?.extract()?),
            "unresolved" => Binding::Unresolved(t.get_item(1)?.extract()?),
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown binding tag {other:?} for {name:?}"
                )))
            }
        };
        env.insert(name, binding);
    }
    Ok(env)
}

/// `("function" | "classmethod", source, path, first_line, qualname, env[, library])`.
fn function_from_py(t: &Bound<'_, PyTuple>) -> PyResult<FunctionSource> {
    let env_obj = t.get_item(5)?;
    let env = if env_obj.is_none() {
        None
    } else {
        Some(env_from_py(env_obj.cast::<PyDict>()?)?)
    };
    Ok(FunctionSource {
        code: FunctionCode::Text(t.get_item(1)?.extract()?),
        path: t.get_item(2)?.extract()?,
        first_line: t.get_item(3)?.extract()?,
        name: t.get_item(4)?.extract()?,
        env,
        library: t.len() > 6 && t.get_item(6)?.is_truthy()?,
    })
}

fn options_from_py(d: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut o = Options::default();
    if let Some(d) = d {
        if let Some(v) = d.get_item("protect_domains")? {
            o.protect_domains = v.is_truthy()?;
        }
        if let Some(v) = d.get_item("fallback")? {
            o.fallback = v.is_truthy()?;
        }
        if let Some(v) = d.get_item("optimize")? {
            o.optimize = v.is_truthy()?;
        }
        if let Some(v) = d.get_item("nan_on_raise")? {
            o.nan_on_raise = v.is_truthy()?;
        }
    }
    Ok(o)
}

fn diagnostics_to_py<'py>(py: Python<'py>, diags: &[Rendered]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in diags {
        let item = PyDict::new(py);
        item.set_item("code", d.code)?;
        item.set_item("message", &d.message)?;
        item.set_item("path", &d.path)?;
        item.set_item("line", d.line)?;
        item.set_item("col", d.col)?;
        item.set_item("end_line", d.end_line)?;
        item.set_item("end_col", d.end_col)?;
        item.set_item("text", &d.text)?;
        list.append(item)?;
    }
    Ok(list)
}

fn vectorization_error(py: Python<'_>, diags: &[Rendered]) -> PyErr {
    let n = diags.len();
    let mut text = format!(
        "cannot vectorize: {n} problem{}\n",
        if n == 1 { "" } else { "s" }
    );
    for d in diags {
        text.push_str(&d.text);
        text.push('\n');
    }
    let err = VectorizationError::new_err(text.trim_end().to_string());
    if let Ok(list) = diagnostics_to_py(py, diags) {
        let _ = err.value(py).setattr("diagnostics", list);
    }
    err
}

fn hidden_to_py(hidden: &[Hidden]) -> Vec<(String, String)> {
    hidden
        .iter()
        .map(|h| match h {
            Hidden::Array(n) => ("array".to_string(), n.clone()),
            Hidden::Callee(n) => ("callee".to_string(), n.clone()),
            Hidden::Object(n) => ("object".to_string(), n.clone()),
            Hidden::Scalar(_) => ("scalar".to_string(), h.global()),
        })
        .collect()
}

fn assumption_to_py<'py>(py: Python<'py>, a: &Assumption) -> PyResult<Bound<'py, PyTuple>> {
    let binding: Bound<'py, PyTuple> = match &a.binding {
        AssumedBinding::Const(c) => PyTuple::new(
            py,
            [PyString::new(py, "const").into_any(), const_to_py(py, c)?],
        )?,
        AssumedBinding::MathModule => PyTuple::new(py, [PyString::new(py, "math")])?,
        AssumedBinding::NumpyModule => PyTuple::new(py, [PyString::new(py, "numpy")])?,
        AssumedBinding::MathMember(m) => PyTuple::new(py, ["math_member", m.as_str()])?,
        AssumedBinding::NumpyMember(m) => PyTuple::new(py, ["numpy_member", m.as_str()])?,
        AssumedBinding::Builtin(b) => PyTuple::new(py, ["builtin", b.as_str()])?,
        AssumedBinding::BisectModule => PyTuple::new(py, [PyString::new(py, "bisect_module")])?,
        AssumedBinding::Bisect(name) => PyTuple::new(py, ["bisect", name.as_str()])?,
        AssumedBinding::NumbersModule => PyTuple::new(py, [PyString::new(py, "numbers_module")])?,
        AssumedBinding::NumbersClass(name) => PyTuple::new(py, ["numbers_class", name.as_str()])?,
        AssumedBinding::Function { name, line } | AssumedBinding::ClassMethod { name, line } => {
            PyTuple::new(
                py,
                [
                    PyString::new(
                        py,
                        if matches!(a.binding, AssumedBinding::Function { .. }) {
                            "function"
                        } else {
                            "classmethod"
                        },
                    )
                    .into_any(),
                    PyString::new(py, name).into_any(),
                    line.into_pyobject(py)?.into_any(),
                ],
            )?
        }
        AssumedBinding::ModuleFunction {
            name,
            line,
            module,
            sha256,
        } => PyTuple::new(
            py,
            [
                PyString::new(py, "module_function").into_any(),
                PyString::new(py, name).into_any(),
                line.into_pyobject(py)?.into_any(),
                PyString::new(py, module).into_any(),
                PyString::new(py, sha256).into_any(),
            ],
        )?,
        AssumedBinding::StdlibFunction {
            name,
            module,
            text_sha256,
        } => PyTuple::new(
            py,
            [
                "stdlib_function",
                name.as_str(),
                module.as_str(),
                text_sha256.as_str(),
            ],
        )?,
        AssumedBinding::StdlibMethod {
            class,
            name,
            module,
            module_text_sha256,
        } => PyTuple::new(
            py,
            [
                "stdlib_method",
                class.as_str(),
                name.as_str(),
                module.as_str(),
                module_text_sha256.as_str(),
            ],
        )?,
        AssumedBinding::Enum(members) => PyTuple::new(
            py,
            [
                PyString::new(py, "enum").into_any(),
                PyTuple::new(py, members)?.into_any(),
            ],
        )?,
        AssumedBinding::Object(type_name) => PyTuple::new(py, ["object", type_name.as_str()])?,
        AssumedBinding::ExceptionClass(mro) => PyTuple::new(
            py,
            [
                PyString::new(py, "exception").into_any(),
                PyTuple::new(py, mro)?.into_any(),
            ],
        )?,
        AssumedBinding::NamedTuple(class, fields) => PyTuple::new(
            py,
            [
                PyString::new(py, "namedtuple").into_any(),
                PyString::new(py, class).into_any(),
                PyTuple::new(py, fields)?.into_any(),
            ],
        )?,
    };
    PyTuple::new(
        py,
        [PyString::new(py, &a.name).into_any(), binding.into_any()],
    )
}

fn compiled_to_py<'py>(py: Python<'py>, c: &Compiled, d: &Bound<'py, PyDict>) -> PyResult<()> {
    d.set_item("source", &c.source)?;
    d.set_item("entry", &c.entry)?;
    // The module in its two parts (source == fast_source + exact_source): emit compiles the
    // exact body only when it is first called.
    d.set_item("fast_source", &c.generated.fast_source)?;
    d.set_item("exact_source", &c.generated.exact_source)?;
    d.set_item("exact_entry", &c.generated.exact_entry)?;
    // Which functions of out-of-line helpers each part defines: emit reads this list, never
    // the text (ARCHITECTURE.md).
    d.set_item("helpers", &c.generated.helpers)?;
    d.set_item("exact_helpers", &c.generated.exact_helpers)?;
    // Issue 30: whether runtime/blocked.py may run a large int64 call in blocks.
    d.set_item("int_lanewise", c.generated.int_lanewise)?;
    // Issue 30: the mixed body's kinds when a large call of them may run in blocks, else None.
    d.set_item("mixed_lanewise", &c.generated.mixed_lanewise)?;
    d.set_item("hidden", hidden_to_py(&c.hidden))?;
    let assumptions = PyList::empty(py);
    for a in &c.assumptions {
        assumptions.append(assumption_to_py(py, a)?)?;
    }
    d.set_item("assumptions", assumptions)?;
    d.set_item("scalar_source", &c.scalar_source)?;
    // D19, D23: reported by `stats()` and `show`.
    let sites = PyList::empty(py);
    for (kind, what, line) in &c.element_sites {
        sites.append((*kind, what, *line))?;
    }
    d.set_item("element_sites", sites)?;
    Ok(())
}

/// Compiles one function; see ARCHITECTURE.md for the arguments.
#[pyfunction]
#[pyo3(signature = (source, path, first_line, name, env, options=None))]
fn compile_function<'py>(
    py: Python<'py>,
    source: &str,
    path: &str,
    first_line: usize,
    name: &str,
    env: &Bound<'py, PyDict>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let env = env_from_py(env)?;
    let want_ir = match options {
        Some(o) => o
            .get_item("ir")?
            .map(|v| v.is_truthy())
            .transpose()?
            .unwrap_or(false),
        None => false,
    };
    let options = options_from_py(options)?;
    // The compile thread outlives this call (src/host/stack.rs): it gets its own copies.
    let (source, path, name) = (source.to_owned(), path.to_owned(), name.to_owned());
    let result = guarded(|| {
        Ok(on_large_stack(move || {
            let req = Request {
                input: Input::Text {
                    source: &source,
                    path: &path,
                    first_line,
                },
                name: &name,
                env: &env,
                options,
            };
            pipeline::compile_function(&req)
        }))
    })?;
    match result {
        Ok(c) => {
            let d = PyDict::new(py);
            compiled_to_py(py, &c, &d)?;
            if want_ir {
                d.set_item("ir", c.ir.to_string())?;
                d.set_item("float_ir", c.float_ir.to_string())?;
                d.set_item("int_ir", c.int_ir.to_string())?;
                if let Some(mixed) = &c.mixed_ir {
                    d.set_item("mixed_ir", mixed.to_string())?;
                }
            }
            Ok(d)
        }
        Err(CompileError::Diagnostics(diags)) => Err(vectorization_error(py, &diags)),
        Err(CompileError::Deferred(names)) => {
            let err = DeferredError::new_err(format!(
                "needs the live function for: {}",
                names.join(", ")
            ));
            let _ = err.value(py).setattr("names", names);
            Err(err)
        }
        Err(CompileError::Internal(m)) => Err(InternalError::new_err(m)),
    }
}

/// Another module's text as `compile_module` receives it: (source, path, sha256 hex of the
/// source bytes, or None for a module of the standard library).
type ModuleText = (String, String, Option<String>);

/// Statically compiles every marked function of a module's source (and `only`, if named).
/// `package`: the module's `__package__`; `modules`: other modules of the program its imports
/// may name, `{absolute name: (source, path, sha256 hex of the source bytes, or None for a
/// module of the standard library)}`
/// (src/static_module/imports.rs).
#[pyfunction]
#[pyo3(signature = (source, path, only=None, package=None, modules=None))]
fn compile_module<'py>(
    py: Python<'py>,
    source: &str,
    path: &str,
    only: Option<&str>,
    package: Option<String>,
    modules: Option<std::collections::BTreeMap<String, ModuleText>>,
) -> PyResult<Bound<'py, PyList>> {
    let package = package.unwrap_or_default();
    let modules = modules
        .unwrap_or_default()
        .into_iter()
        .map(|(name, (source, path, sha256))| {
            (
                name,
                ForeignModule {
                    source,
                    path,
                    sha256,
                },
            )
        })
        .collect();
    let optimize = py
        .import("sys")?
        .getattr("flags")?
        .getattr("optimize")?
        .is_truthy()?;
    let (source, path, only) = (source.to_owned(), path.to_owned(), only.map(str::to_owned));
    let result = guarded(|| {
        Ok(on_large_stack(move || {
            let imports = Imports::new(package, modules);
            static_module::compile_module_in(&source, &path, only.as_deref(), optimize, &imports)
        }))
    })?;
    let functions = match result {
        Ok(f) => f,
        Err(rendered) => return Err(vectorization_error(py, &[rendered])),
    };
    let list = PyList::empty(py);
    for f in &functions {
        let d = PyDict::new(py);
        d.set_item("qualname", &f.qualname)?;
        d.set_item("name", &f.name)?;
        d.set_item("line", f.line)?;
        let opts = PyDict::new(py);
        opts.set_item("protect_domains", f.options.options.protect_domains)?;
        opts.set_item("fallback", f.options.options.fallback)?;
        opts.set_item("optimize", f.options.options.optimize)?;
        opts.set_item("nan_on_raise", f.options.options.nan_on_raise)?;
        opts.set_item("pinned_namespace", f.options.pinned_namespace)?;
        d.set_item("options", opts)?;
        match &f.outcome {
            Outcome::Ok(c) => {
                d.set_item("status", "ok")?;
                compiled_to_py(py, c, &d)?;
            }
            Outcome::Deferred(names) => {
                d.set_item("status", "deferred")?;
                d.set_item("deferred", names.clone())?;
            }
            Outcome::Error(diags) => {
                d.set_item("status", "error")?;
                d.set_item("diagnostics", diagnostics_to_py(py, diags)?)?;
                let text: Vec<&str> = diags.iter().map(|r| r.text.as_str()).collect();
                d.set_item("error", text.join("\n"))?;
            }
        }
        list.append(d)?;
    }
    Ok(list)
}

/// The generated module of `fallback=True` for a function that cannot be compiled at all: one
/// element loop with the original's signature (src/codegen/fallback.rs). ValueError without parameters.
#[pyfunction]
#[pyo3(signature = (entry, params, posonly, kwonly))]
fn element_loop(
    entry: &str,
    params: Vec<String>,
    posonly: usize,
    kwonly: Vec<String>,
) -> PyResult<String> {
    crate::codegen::fallback::element_loop(entry, &params, posonly, &kwonly)
        .ok_or_else(|| PyValueError::new_err("an element loop needs at least one parameter"))
}

/// The stand-in of a function compiled at its first call, with the original's signature
/// (src/codegen/first_call.rs).
#[pyfunction]
#[pyo3(signature = (entry, params, posonly, kwonly, note))]
fn first_call_stub(
    entry: &str,
    params: Vec<String>,
    posonly: usize,
    kwonly: Vec<String>,
    note: &str,
) -> String {
    crate::codegen::first_call::first_call_stub(entry, &params, posonly, &kwonly, note)
}

/// The text the function `name` whose text starts `source` is compiled from: its `def` block, or
/// the lambda expression the compiler picks (src/frontend/mod.rs `function_text`); None when
/// there is no such function in it.
#[pyfunction]
fn function_text(source: &str, name: &str) -> PyResult<Option<String>> {
    guarded(|| {
        // A def's block is cut without parsing; a lambda's line is parsed (a deep stack).
        if crate::frontend::identifiers::is_lambda(name) {
            let (source, name) = (source.to_owned(), name.to_owned());
            Ok(on_large_stack(move || {
                crate::frontend::function_text(&source, &name)
            }))
        } else {
            Ok(crate::frontend::function_text(source, name))
        }
    })
}

/// Hex sha256 of `data[start:]` (a start offset, so that a cache file's payload is hashed in
/// place rather than copied out first).
#[pyfunction]
#[pyo3(signature = (data, start = 0))]
fn sha256_hex<'py>(py: Python<'py>, data: &[u8], start: usize) -> PyResult<Bound<'py, PyString>> {
    let tail = data.get(start..).ok_or_else(|| {
        PyValueError::new_err(format!(
            "start {start} is beyond the {} bytes of data",
            data.len()
        ))
    })?;
    let mut hex = [0u8; 64];
    Ok(PyString::new(
        py,
        crate::host::cache::sha256_hex_into(tail, &mut hex),
    ))
}

/// The 64-bit checksum of `data[start:]` that guards a cache file's payload (src/host/cache.rs).
#[pyfunction]
#[pyo3(signature = (data, start = 0))]
fn checksum64(data: &[u8], start: usize) -> PyResult<u64> {
    let tail = data.get(start..).ok_or_else(|| {
        PyValueError::new_err(format!(
            "start {start} is beyond the {} bytes of data",
            data.len()
        ))
    })?;
    Ok(crate::host::cache::checksum64(tail))
}

/// Writes `data` to `path` atomically (temporary file, then rename); `mode` as for a `.pyc`
/// (restricted to 0o666 and by the umask; owner-only without it). Raises OSError.
#[pyfunction]
#[pyo3(signature = (path, data, mode=None))]
fn write_atomic(path: &str, data: &[u8], mode: Option<u32>) -> PyResult<()> {
    crate::host::cache::write_atomic(Path::new(path), data, mode)
        .map_err(|e| PyOSError::new_err(format!("{path}: {e}")))
}

/// The `.py` files under `root` that mention `vectorize`, relative, sorted.
#[pyfunction]
fn scan_tree(root: &str) -> PyResult<Vec<String>> {
    crate::host::scan::scan_tree(Path::new(root))
        .map_err(|e| PyOSError::new_err(format!("{root}: {e}")))
}

/// The float64 lanes of the NumPy array `a`: data pointer and count, read from its
/// `__array_struct__` (src/host/array_interface.rs). The capsule returned with them holds a
/// reference to the array: the lanes stay valid while the caller keeps it. ValueError for an
/// array that is not C-contiguous, aligned, native-order float64 (and writeable when `write`).
fn float64_lanes<'py>(
    a: &Bound<'py, PyAny>,
    write: bool,
) -> PyResult<(Bound<'py, PyCapsule>, *mut f64, usize)> {
    let capsule = a
        .getattr(intern!(a.py(), "__array_struct__"))?
        .cast_into::<PyCapsule>()?;
    let iface = capsule.pointer_checked(None)?.cast::<ArrayInterface>();
    // SAFETY: a NumPy `__array_struct__` capsule (unnamed) points to the array's
    // `PyArrayInterface`, with its shape, valid while the capsule lives.
    let lanes = unsafe { crate::host::array_interface::float64_lanes(iface.as_ref(), write) };
    let (data, n) = lanes.ok_or_else(|| {
        PyValueError::new_err("not a C-contiguous, aligned, native float64 NumPy array")
    })?;
    Ok((capsule, data, n))
}

/// The runtime's Horner kernel (src/host/kernels.rs), for `_vec_horner` alone: `out` (fresh,
/// sharing no memory with `x`) and `x` are C-contiguous float64 NumPy arrays of one size;
/// `ops` is `+` (`acc + c`) or `-` (`c - acc`) per coefficient after the first. Returns whether
/// some lane of `out` is not finite. Runs with the GIL released.
#[pyfunction]
fn horner_f64(
    py: Python<'_>,
    out: &Bound<'_, PyAny>,
    x: &Bound<'_, PyAny>,
    coefficients: Vec<f64>,
    ops: &str,
    times_x: bool,
) -> PyResult<bool> {
    if coefficients.len() < 2
        || ops.len() + 1 != coefficients.len()
        || !ops.bytes().all(|b| b == b'+' || b == b'-')
    {
        return Err(PyValueError::new_err("horner_f64: malformed polynomial"));
    }
    // The capsules keep both arrays alive until the kernel has run.
    let (_out_held, out, n) = float64_lanes(out, true)?;
    let (_x_held, x, n_x) = float64_lanes(x, false)?;
    if n != n_x || !crate::host::array_interface::disjoint(out, x, n) {
        return Err(PyValueError::new_err(
            "horner_f64: arrays of other sizes or overlapping",
        ));
    }
    let signs: Option<Vec<f64>> = ops.contains('-').then(|| {
        ops.bytes()
            .map(|b| if b == b'-' { -1.0 } else { 1.0 })
            .collect()
    });
    let (out, x): (&mut [f64], &[f64]) = if n == 0 {
        (&mut [], &[])
    } else {
        // SAFETY: `float64_lanes` read two live, aligned, C-contiguous float64 buffers of `n`
        // elements, checked disjoint, the first one writeable; the held capsules keep them
        // alive for the call.
        unsafe {
            (
                std::slice::from_raw_parts_mut(out, n),
                std::slice::from_raw_parts(x, n),
            )
        }
    };
    Ok(py.detach(|| {
        let p = crate::host::kernels::Horner {
            coefficients: &coefficients,
            signs: signs.as_deref(),
            times_x,
        };
        crate::host::kernels::horner(out, x, &p)
    }))
}

/// `sin` and `cos` of the `n` float64 at address `x`, written to the `n` float64 at addresses
/// `sin` and `cos` (src/host/trig.rs), the GIL released meanwhile; whether some element is an
/// infinity, a NaN or subnormal. Private to the runtime: `_vec_sincos` (runtime/trig.py)
/// passes the data of C-contiguous float64 NumPy arrays of `n` elements that it holds for the
/// call, the outputs its own new arrays.
#[pyfunction]
fn sin_cos_at(py: Python<'_>, x: usize, sin: usize, cos: usize, n: usize) -> bool {
    py.detach(move || {
        // SAFETY: the caller's contract above: three live, aligned buffers of `n` float64, the
        // outputs distinct from each other and from `x`.
        let (x, s, c) = unsafe {
            (
                std::slice::from_raw_parts(x as *const f64, n),
                std::slice::from_raw_parts_mut(sin as *mut f64, n),
                std::slice::from_raw_parts_mut(cos as *mut f64, n),
            )
        };
        crate::host::trig::sin_cos_into(x, s, c)
    })
}

/// The runtime helper contract (src/codegen/runtime.rs) as `{key: {"name", "params", "ops",
/// "meaning"}}`: the runtime's registry binds each name, emit and the tests read it.
fn runtime_helpers(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let table = PyDict::new(py);
    for h in crate::codegen::runtime::HELPERS {
        let entry = PyDict::new(py);
        entry.set_item("name", h.name)?;
        entry.set_item("params", h.params)?;
        entry.set_item("ops", PyTuple::new(py, h.ops)?)?;
        entry.set_item("meaning", h.meaning)?;
        table.set_item(h.key, entry)?;
    }
    Ok(table)
}

/// The NumPy names accepted inside scalar code (D16, src/lower/calls/numpy/table.rs) as
/// `{name: {"lowers_to", "semantics"}}`, and the table docs/numpy.md holds (`"markdown"`): the
/// decorator describes a NumPy function by these names, tools/numpy_table.py writes the docs.
fn numpy_names(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let table = PyDict::new(py);
    for n in crate::lower::NUMPY_NAMES {
        let entry = PyDict::new(py);
        entry.set_item("lowers_to", n.lowers_to())?;
        entry.set_item("semantics", n.semantics)?;
        table.set_item(n.name, entry)?;
    }
    Ok(table)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("BUILD_ID", crate::BUILD_ID)?;
    m.add("RUNTIME_HELPERS", runtime_helpers(py)?)?;
    m.add("NUMPY_NAMES", numpy_names(py)?)?;
    m.add("NUMPY_TABLE", crate::lower::numpy_names_markdown())?;
    // The live decorator's environment binds these names as builtins (environment.py).
    m.add(
        "KNOWN_BUILTINS",
        PyTuple::new(py, crate::static_module::KNOWN_BUILTINS)?,
    )?;
    m.add("VectorizationError", py.get_type::<VectorizationError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add("DeferredError", py.get_type::<DeferredError>())?;
    m.add_function(wrap_pyfunction!(compile_function, m)?)?;
    m.add_function(wrap_pyfunction!(compile_module, m)?)?;
    m.add_function(wrap_pyfunction!(sha256_hex, m)?)?;
    m.add_function(wrap_pyfunction!(checksum64, m)?)?;
    m.add_function(wrap_pyfunction!(element_loop, m)?)?;
    m.add_function(wrap_pyfunction!(first_call_stub, m)?)?;
    m.add_function(wrap_pyfunction!(function_text, m)?)?;
    m.add_function(wrap_pyfunction!(write_atomic, m)?)?;
    m.add_function(wrap_pyfunction!(scan_tree, m)?)?;
    m.add_function(wrap_pyfunction!(horner_f64, m)?)?;
    m.add_function(wrap_pyfunction!(sin_cos_at, m)?)?;
    Ok(())
}
