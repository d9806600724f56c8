import { Resvg } from '@resvg/resvg-js';

/**
 * PNG copies of the SVG plots through resvg (a Rust SVG renderer shipped as a native npm
 * package): no browser, no canvas. Text is drawn with the system's fonts; the plots ask for
 * DejaVu Sans first (Debian's fonts-dejavu-core), then Liberation Sans and Arial.
 */

/** The 8 bytes every PNG file starts with. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The SVG's own size in px, from its width and height attributes. */
export function svgSize(svg: string): { width: number; height: number } {
  const open = /<svg\b[^>]*>/.exec(svg)?.[0];
  const width = Number(/\swidth="([\d.]+)"/.exec(open ?? '')?.[1]);
  const height = Number(/\sheight="([\d.]+)"/.exec(open ?? '')?.[1]);
  if (!open || !(width > 0) || !(height > 0))
    throw new RangeError('svgToPng: the SVG has no <svg> element with a positive width and height');
  return { width, height };
}

/** Renders `svg` to PNG at `scale` times its size (1.5 by default, sharp on most screens). */
export function svgToPng(svg: string, scale = 1.5): Buffer {
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new RangeError(`svgToPng: scale must be > 0, got ${scale}`);
  const { width } = svgSize(svg);
  const png = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'width', value: Math.round(width * scale) },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  })
    .render()
    .asPng();
  return Buffer.from(png);
}
