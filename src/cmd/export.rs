//! `alphazero export`: a network checkpoint as a plain safetensors file plus a JSON description
//! of its tensors, input encoding, policy layout and value perspective (see
//! `alphazero_nn::export`), or as an ONNX model (see `alphazero_nn::onnx`), for loading it in
//! other programs.
use alphazero_engine::files::write_atomic;
use alphazero_nn::export::export_network;
use alphazero_nn::onnx::export_onnx;
use alphazero_nn::Encode;
use alphazero_nn::{load_any_checkpoint, Checkpoint, CheckpointHeader, Device};
use alphazero_registry::with_game;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Arguments of `alphazero export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The network checkpoint (`.azc`), or a training run's folder for its champion; its
    /// game and rules come from the file.
    #[arg(value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    model: PathBuf,
    /// Where to write: a file name ending in `.onnx` (an ONNX model: batch norm folded,
    /// input `planes`, outputs `policy` and `value`, the game and shapes in its metadata), a
    /// file name ending in `.safetensors` (the description goes beside it as `.json`), or a
    /// folder (created when missing) that gets `NAME.safetensors` and `NAME.json`, NAME being
    /// the checkpoint's file name without `.azc`.
    #[arg(long)]
    out: PathBuf,
}

/// What `--out` asks for.
enum Outputs {
    /// An ONNX model file.
    Onnx(PathBuf),
    /// The safetensors file and its JSON description.
    Safetensors(PathBuf, PathBuf),
}

/// The output files of `--out`.
fn outputs(model: &Path, out: &Path) -> Result<Outputs> {
    let tensors = match out.extension().and_then(|e| e.to_str()) {
        Some("onnx") => return Ok(Outputs::Onnx(out.to_path_buf())),
        Some("safetensors") => out.to_path_buf(),
        Some(other) => bail!(
            "--out {}: give a folder or a file name ending in .safetensors or .onnx (not \
             .{other})",
            out.display()
        ),
        None => {
            if out.exists() && !out.is_dir() {
                bail!("--out {}: exists and is not a folder", out.display());
            }
            let stem = model
                .file_stem()
                .map_or_else(|| "network".into(), |s| s.to_string_lossy().into_owned());
            out.join(format!("{stem}.safetensors"))
        }
    };
    let json = tensors.with_extension("json");
    Ok(Outputs::Safetensors(tensors, json))
}

/// Creates the folder of an output file when it is missing.
fn create_parent(file: &Path) -> Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the folder {}", dir.display()))?;
    }
    Ok(())
}

fn export_for<G: Encode>(cfg: &G::Config, args: &ExportArgs, ck: &Checkpoint) -> Result<()> {
    let source = args
        .model
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let (tensors, json) = match outputs(&args.model, &args.out)? {
        Outputs::Safetensors(tensors, json) => (tensors, json),
        Outputs::Onnx(path) => {
            create_parent(&path)?;
            let bytes = export_onnx::<G>(&ck.model, &ck.header, cfg, &source)?;
            write_atomic(&path, &bytes)?;
            eprintln!(
                "{}: ONNX model ({}, {}x{}, batch norm folded) written to {}",
                args.model.display(),
                ck.header.game.words(),
                ck.header.model.residual_blocks,
                ck.header.model.channels,
                path.display()
            );
            return Ok(());
        }
    };
    let ex = export_network::<G>(&ck.model, &ck.header, cfg, &source)?;
    create_parent(&tensors)?;
    let text = serde_json::to_string_pretty(&ex.description).context("encoding the description")?;
    write_atomic(&tensors, &ex.safetensors)?;
    write_atomic(&json, format!("{text}\n").as_bytes())?;
    let count = ex.description["tensors"].as_array().map_or(0, Vec::len);
    eprintln!(
        "{}: {count} tensors ({} parameters, {}) written to {} and described in {}",
        args.model.display(),
        ck.header.model.num_params(),
        ck.header.game.words(),
        tensors.display(),
        json.display()
    );
    Ok(())
}

/// Runs `alphazero export`.
pub fn run(args: &ExportArgs) -> Result<()> {
    outputs(&args.model, &args.out)?;
    // The game is the checkpoint's own.
    let ck = load_any_checkpoint(&args.model, &Device::flex()).context("loading the network")?;
    let spec = ck.header.game;
    with_game!(&spec, G, cfg => {
        // A network of an older build whose encoder has gained planes since (renju's
        // forbidden points) is exported as its game's positions are encoded now: the added
        // planes with zero weights, so that the description's planes are the graph's.
        let (model, fitted) = ck.model.clone().for_positions_of::<G>(&ck.header.model, cfg);
        let ck = Checkpoint {
            model,
            header: CheckpointHeader { model: fitted, ..ck.header.clone() },
            optimizer_state: None,
        };
        export_for::<G>(cfg, args, &ck)
    })
}
