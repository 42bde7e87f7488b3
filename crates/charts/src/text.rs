//! Text in the bundled DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`),
//! rasterised by `ab_glyph` and drawn anti-aliased pixel by pixel on any plotters backend.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// The bundled DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`).
static FONT_BYTES: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// The parsed bundled font.
fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| {
        FontRef::try_from_slice(FONT_BYTES).expect("the bundled DejaVu Sans is a valid font")
    })
}

/// Width and height (ascent + descent) in pixels of `text` set at `px` pixels per em.
pub fn text_size(text: &str, px: f32) -> (i32, i32) {
    let f = font().as_scaled(PxScale::from(px));
    let mut width = 0.0f32;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            width += f.kern(p, id);
        }
        width += f.h_advance(id);
        prev = Some(id);
    }
    (
        width.ceil() as i32,
        (f.ascent() - f.descent()).ceil() as i32,
    )
}

/// Draws `text` in the bundled font at `px` pixels per em, anti-aliased, placed so that the
/// point `(x, y)` is at its `h` side (left, centre, right) and `v` side (top of the ascent,
/// centre, bottom of the descent).
///
/// # Errors
/// The drawing backend's error.
pub fn draw_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    (x, y): (i32, i32),
    px: f32,
    color: RGBColor,
    (h, v): (HPos, VPos),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let f = font().as_scaled(PxScale::from(px));
    let (w, tall) = text_size(text, px);
    let left = match h {
        HPos::Left => x,
        HPos::Center => x - w / 2,
        HPos::Right => x - w,
    } as f32;
    let top = match v {
        VPos::Top => y,
        VPos::Center => y - tall / 2,
        VPos::Bottom => y - tall,
    } as f32;
    let baseline = top + f.ascent();
    let mut caret = left;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            caret += f.kern(p, id);
        }
        prev = Some(id);
        let glyph = id.with_scale_and_position(PxScale::from(px), point(caret, baseline));
        caret += f.h_advance(id);
        let Some(outline) = font().outline_glyph(glyph) else {
            continue;
        };
        let b = outline.px_bounds();
        let mut pixels = Vec::new();
        outline.draw(|gx, gy, coverage| {
            if coverage > 0.02 {
                pixels.push((
                    b.min.x as i32 + gx as i32,
                    b.min.y as i32 + gy as i32,
                    coverage.min(1.0),
                ));
            }
        });
        for (px_, py_, a) in pixels {
            area.draw_pixel((px_, py_), &color.mix(f64::from(a)))?;
        }
    }
    Ok(())
}

/// Pixel size of the font for [`draw_text`]'s `scale`: scale 1 is 12 px, 2 is 19 px.
fn size_of_scale(scale: i32) -> f32 {
    5.0 + 7.0 * scale.max(1) as f32
}

/// Width in pixels of `text` drawn at `scale` with [`draw_text`].
pub fn text_width(text: &str, scale: i32) -> i32 {
    text_size(text, size_of_scale(scale)).0
}

/// Draws `text` in the bundled font with its top-left corner at `(x, y)` (pixels); `scale`
/// 1 is the size of tick labels (12 px), 2 of axis titles (19 px).
///
/// # Errors
/// The drawing backend's error.
pub fn draw_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    (x, y): (i32, i32),
    scale: i32,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_label(
        area,
        text,
        (x, y),
        size_of_scale(scale),
        color,
        (HPos::Left, VPos::Top),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_drawn_with_the_bundled_font() {
        // Proportional widths: "W" is wider than "i"; the bitmap font made them equal.
        assert!(text_width("WWWW", 1) > text_width("iiii", 1) + 10);
        assert!(text_width("iteration", 2) > text_width("iteration", 1));
        assert_eq!(text_width("", 1), 0);
        let mut buf = vec![255u8; 200 * 40 * 3];
        {
            let root = BitMapBackend::with_buffer(&mut buf, (200, 40)).into_drawing_area();
            draw_text(&root, "Elo ±95%", (4, 4), 2, RGBColor(0, 0, 0)).unwrap();
            root.present().unwrap();
        }
        // Anti-aliased: grey levels between ink and paper occur.
        let dark = buf.chunks(3).filter(|p| p[0] < 60).count();
        let grey = buf.chunks(3).filter(|p| p[0] > 60 && p[0] < 200).count();
        assert!(dark > 40 && grey > 20, "dark {dark}, grey {grey}");
    }
}
