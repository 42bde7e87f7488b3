//! The Python package `alphazero`: this project's games, search, networks and self-play
//! records for Python programs, built with PyO3 and maturin (`pip install ./crates/python`).
//!
//! * [`game::PyGame`] (`alphazero.Game`): any game of the registry by its spec
//!   (`"gomoku:15:renju"`, `"xiangqi"`, `"connect4"`), with its moves in the game's notation,
//!   outcome, FEN, symmetries and the network's input planes as a NumPy array.
//! * [`network::PyNetwork`] (`alphazero.Network`) and [`network::search`]
//!   (`alphazero.search`): a checkpoint (`.azc`) or none, the game's play search (the
//!   registry's preset every program uses) under a simulation or time budget, the network's
//!   raw outputs, and ONNX export; [`network::PyEvaluator`] (`alphazero.Evaluator`): what the
//!   programs play with, a fast Mixnet evaluator (`.azm`) where one is shipped.
//! * [`records::load_records`] (`alphazero.load_records`): self-play records (`.azr`) as the
//!   arrays the trainer learns from.
//!
//! Every error of the Rust side is a Python exception with the engine's message (the chain of
//! causes joined by `": "`, as the command line prints it): `ValueError` for a bad spec, move,
//! position or argument, `OSError` when a file cannot be read or written, `RuntimeError` for a
//! failed evaluation. Nothing here panics on any input (the package's tests feed garbage to
//! every entry point).
#![deny(missing_docs)]

use pyo3::exceptions::{PyOSError, PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

mod game;
mod network;
mod records;

/// `ValueError` with the message of `e` and its causes, `a: b: c`, as the command line
/// prints them.
fn value_error(e: &(dyn std::error::Error + 'static)) -> PyErr {
    PyValueError::new_err(alphazero_train::storage::error_chain(e))
}

/// The integer argument `name` (`value`, any Python int) when it lies in `lo..=hi`; else
/// `ValueError` naming the argument, its range (with `note`, e.g. what to use instead) and
/// the value given, however large (never `OverflowError`: a number beyond 64 bits is out of
/// range like any other). `TypeError` naming it for a value that is not an int.
fn int_arg<T>(value: &Bound<'_, PyAny>, name: &str, lo: T, hi: T, note: &str) -> PyResult<T>
where
    T: Copy + std::fmt::Display + Into<i128> + TryFrom<i128>,
{
    let out_of_range = || {
        let given = value
            .str()
            .map_or_else(|_| "?".to_string(), |s| s.to_string());
        PyValueError::new_err(format!(
            "{name} must be between {lo} and {hi}{note}, got {given}"
        ))
    };
    let n: i128 = match value.extract::<i128>() {
        Ok(n) => n,
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => return Err(out_of_range()),
        Err(_) => {
            let type_name = value
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string());
            return Err(PyTypeError::new_err(format!(
                "{name} must be an int, got {type_name}"
            )));
        }
    };
    if n < lo.into() || n > hi.into() {
        return Err(out_of_range());
    }
    T::try_from(n).map_err(|_| out_of_range())
}

/// The exception for an error of the application layer: `OSError` when a file could not be
/// read or written (an I/O error among its causes), `RuntimeError` for a failed evaluation,
/// `ValueError` otherwise (a file that is no checkpoint or record file, a network for
/// another game). The message is the whole chain.
fn app_error(e: anyhow::Error) -> PyErr {
    let text = format!("{e:#}");
    if e.chain().any(|c| c.is::<std::io::Error>()) {
        PyOSError::new_err(text)
    } else if e.chain().any(|c| c.is::<alphazero_mcts::EvalError>()) {
        PyRuntimeError::new_err(text)
    } else {
        PyValueError::new_err(text)
    }
}

/// The module `alphazero`.
#[pymodule]
fn alphazero(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "GAMES",
        alphazero_registry::GameSpec::NAMES
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>(),
    )?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<network::PyNetwork>()?;
    m.add_class::<network::PyEvaluator>()?;
    m.add_class::<network::PySearchResult>()?;
    m.add_class::<records::PyRecords>()?;
    m.add_class::<records::PyRecordedGame>()?;
    m.add_function(wrap_pyfunction!(network::search, m)?)?;
    m.add_function(wrap_pyfunction!(records::load_records, m)?)?;
    Ok(())
}
