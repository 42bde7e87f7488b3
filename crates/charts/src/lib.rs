//! The chart kit of the project's figures, drawn with plotters' bitmap backend into a memory
//! buffer and encoded as PNG ([`encode_png`]).
//!
//! - [`text`]: text in DejaVu Sans, bundled with this crate (`assets/fonts/DejaVuSans.ttf`,
//!   Bitstream Vera licence beside it) and rasterised with `ab_glyph`, so no system font is
//!   needed ([`draw_label`], [`draw_text`], [`text_width`]).
//! - [`figure`]: a figure is a column of [`Panel`]s over one x axis, the iteration (or another
//!   measure of training, e.g. CPU-hours), with the games played and the time of training at
//!   each labelled value written beneath it ([`XAxis`]). Each panel has a title, its y description, a legend row above the data area
//!   (so that it never covers data), light grey grid lines at labelled y values and (where the
//!   range crosses it) a darker line at y = 0; its [`Series`] are lines, dots or dots with
//!   95% interval bars. [`render`] draws one into a [`Plot`]: the PNG and a text legend with
//!   the exact axis ranges.
//!
//! The training figures (`alphazero_train::plots`), the arena's rating ladder and the board
//! heatmaps of `analyze` are drawn with it.
#![deny(missing_docs)]

pub mod figure;
pub mod text;

pub use figure::{render, Panel, Series, Style, XAxis};
pub use plotters::style::RGBColor;
pub use text::{draw_label, draw_text, text_size, text_width};

/// An error drawing a chart or encoding it.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// Drawing failed.
    #[error("cannot draw plot {name}: {message}")]
    Draw {
        /// The plot's file name.
        name: &'static str,
        /// The backend's message.
        message: String,
    },
    /// PNG encoding failed.
    #[error("cannot encode plot {name} as PNG: {source}")]
    Encode {
        /// The plot's file name.
        name: &'static str,
        /// The cause.
        #[source]
        source: png::EncodingError,
    },
}

/// One rendered plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name, e.g. `losses.png`.
    pub name: &'static str,
    /// The PNG file's bytes ([`figure::WIDTH`] wide, 8-bit RGB).
    pub png: Vec<u8>,
    /// Height in pixels.
    pub height: u32,
    /// The legend: one line per panel and series, and the axis ranges.
    pub legend: String,
}

/// Encodes an 8-bit RGB buffer of `width` × `height` pixels (`3 × width × height` bytes, rows
/// from the top) as PNG.
///
/// # Errors
/// [`ChartError::Encode`] naming `name`.
pub fn encode_png(
    name: &'static str,
    rgb: &[u8],
    width: u32,
    height: u32,
) -> Result<Vec<u8>, ChartError> {
    let mut png_bytes = Vec::new();
    let mut enc = png::Encoder::new(&mut png_bytes, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let encode_err = |source| ChartError::Encode { name, source };
    let mut w = enc.write_header().map_err(encode_err)?;
    w.write_image_data(rgb).map_err(encode_err)?;
    w.finish().map_err(encode_err)?;
    Ok(png_bytes)
}

/// The series colours of the figures: red, blue, green, orange and purple of matplotlib's
/// `tab10` palette, and a dark grey.
pub mod palette {
    use plotters::style::RGBColor;

    /// Red, `#d62728`.
    pub const RED: RGBColor = RGBColor(214, 39, 40);
    /// Blue, `#1f77b4`.
    pub const BLUE: RGBColor = RGBColor(31, 119, 180);
    /// Green, `#2ca02c`.
    pub const GREEN: RGBColor = RGBColor(44, 160, 44);
    /// Grey, `#5a5a5a`.
    pub const GREY: RGBColor = RGBColor(90, 90, 90);
    /// Orange, `#ff7f0e`.
    pub const ORANGE: RGBColor = RGBColor(255, 127, 14);
    /// Purple, `#9467bd`.
    pub const PURPLE: RGBColor = RGBColor(148, 103, 189);
}
