//! `alphazero export`: a network checkpoint as a plain safetensors file plus a JSON description
//! of its tensors, input encoding, policy layout and value perspective (see
//! `alphazero_nn::export`), for loading it in other programs.
use super::records::write_atomic;
use alphazero_nn::export::export_network;
use alphazero_nn::Encode;
use alphazero_nn::{load_checkpoint, CheckpointError, Device};
use alphazero_registry::with_game;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Arguments of `alphazero export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The network checkpoint (`.azc`); its game and rules come from the file.
    model: PathBuf,
    /// Where to write: a file name ending in `.safetensors` (the description goes beside it
    /// as `.json`), or a folder (created when missing) that gets `NAME.safetensors` and
    /// `NAME.json`, NAME being the checkpoint's file name without `.azc`.
    #[arg(long)]
    out: PathBuf,
}

/// The two output files of `--out`.
fn outputs(model: &Path, out: &Path) -> Result<(PathBuf, PathBuf)> {
    let tensors = match out.extension().and_then(|e| e.to_str()) {
        Some("safetensors") => out.to_path_buf(),
        Some(other) => bail!(
            "--out {}: give a folder or a file name ending in .safetensors (not .{other})",
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
    Ok((tensors, json))
}

fn export_for<G: Encode>(cfg: &G::Config, args: &ExportArgs, device: &Device) -> Result<()> {
    let ck = load_checkpoint(&args.model, G::NAME, device).context("loading the network")?;
    let source = args
        .model
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let ex = export_network::<G>(&ck.model, &ck.header, cfg, &source)?;
    let (tensors, json) = outputs(&args.model, &args.out)?;
    if let Some(dir) = tensors.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the folder {}", dir.display()))?;
    }
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
    let device = Device::flex();
    // The game is the checkpoint's own: asking for none makes the loader name it.
    let game = match load_checkpoint(&args.model, "", &device) {
        Err(CheckpointError::WrongGame { found, .. }) => found,
        Err(e) => return Err(anyhow::Error::new(e).context("loading the network")),
        Ok(_) => bail!("{}: the checkpoint names no game", args.model.display()),
    };
    // Read once more for the game's spec (the WrongGame error carries the name only).
    let spec = load_checkpoint(&args.model, &game, &device)
        .context("loading the network")?
        .header
        .game;
    with_game!(&spec, G, cfg => export_for::<G>(cfg, args, &device))
}
