import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * PNG copies of the SVG plots, when a Chromium-family browser is on the PATH (or named by
 * CHROMIUM_PATH): each SVG is opened in headless Chromium through playwright-core and
 * screenshotted. Without a browser nothing is written and the caller says so.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CHROMIUM_PATH && existsSync(env.CHROMIUM_PATH)) return env.CHROMIUM_PATH;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
      const p = join(dir, name);
      if (dir && existsSync(p)) return p;
    }
  }
  return null;
}

export async function renderPngs(
  dir: string,
  svgFiles: readonly string[],
  executablePath: string,
): Promise<string[]> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  const written: string[] = [];
  try {
    const page = await browser.newPage();
    for (const f of svgFiles) {
      const svg = readFileSync(join(dir, f), 'utf8');
      const w = Number(/width="(\d+)"/.exec(svg)?.[1] ?? 800);
      const h = Number(/height="(\d+)"/.exec(svg)?.[1] ?? 600);
      await page.setViewportSize({ width: w, height: h });
      await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
      const png = await page.screenshot({ clip: { x: 0, y: 0, width: w, height: h } });
      const name = f.replace(/\.svg$/, '.png');
      writeFileSync(join(dir, name), png);
      written.push(name);
    }
  } finally {
    await browser.close();
  }
  return written;
}
