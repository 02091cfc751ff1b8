// Launches headless Chromium the way every driver script does: no sandbox
// (root in CI), no GPU, no background traffic; extra adds flags.
import { chromium } from "playwright-core";

/**
 * @param {string} executablePath
 * @param {string[]} [extra]
 */
export function launch(executablePath, extra = []) {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      ...extra,
    ],
  });
}
