// Opens a generated web client in headless Chromium and checks what a user
// would see first. Used by pkg/scaffold/client_browser_test.go; run it by hand with
//
//   node load.mjs --url http://127.0.0.1:4173/ --screenshot /tmp/page.png \
//     [--title "my-bot"] [--chromium /usr/bin/chromium]
//
// It fails (exit 1, reasons on stderr) unless the page loads, shows its
// Connect button and microphone state, has the expected title, and logs no
// console error or uncaught exception; it saves a screenshot either way and
// prints one JSON line with what it saw. It does not click Connect: that
// needs a running bot, and Daily's call-machine bundle from c.daily.co,
// which both transports load to open the microphone.
import { launch } from "./browser.mjs";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  options: {
    url: { type: "string" },
    screenshot: { type: "string" },
    title: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    timeout: { type: "string", default: "20000" },
  },
});
if (!opts.url || !opts.screenshot) {
  console.error("usage: node load.mjs --url URL --screenshot FILE [--title T] [--chromium PATH]");
  process.exit(2);
}
const timeout = Number(opts.timeout);

const browser = await launch(opts.chromium);

const problems = [];
const result = { url: opts.url };
try {
  const page = await browser.newPage({ viewport: { width: 1024, height: 720 } });
  const consoleErrors = [];
  const pageErrors = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") {
      const where = msg.location();
      consoleErrors.push(`${msg.text()}${where.url ? ` (${where.url}:${where.lineNumber})` : ""}`);
    }
  });
  page.on("pageerror", (err) => pageErrors.push(String(err)));

  const response = await page.goto(opts.url, { waitUntil: "load", timeout });
  result.status = response?.status();
  if (!response?.ok()) problems.push(`GET ${opts.url}: HTTP ${result.status}`);

  const connect = page.getByRole("button", { name: "Connect", exact: true });
  try {
    await connect.waitFor({ state: "visible", timeout });
  } catch {
    problems.push("no visible Connect button");
  }
  result.micState = (await page.locator(".mic-state").textContent({ timeout }).catch(() => null))?.trim();
  if (!result.micState?.startsWith("Microphone")) problems.push(`microphone state not shown (got ${JSON.stringify(result.micState)})`);
  // The transport selector's choices, if the page shows one.
  const selector = page.locator("select");
  result.transportOptions = (await selector.isVisible())
    ? await selector.locator("option").allTextContents()
    : [];

  result.title = await page.title();
  if (opts.title !== undefined && result.title !== opts.title) {
    problems.push(`title ${JSON.stringify(result.title)}, want ${JSON.stringify(opts.title)}`);
  }

  // Give late errors (failed requests, effects) a moment to surface.
  await page.waitForLoadState("networkidle", { timeout }).catch(() => {});
  result.consoleErrors = [...consoleErrors];
  result.pageErrors = [...pageErrors];
  for (const e of consoleErrors) problems.push(`console error: ${e}`);
  for (const e of pageErrors) problems.push(`page error: ${e}`);

  await page.screenshot({ path: opts.screenshot, fullPage: true });
  result.screenshot = opts.screenshot;
} catch (err) {
  problems.push(String(err));
} finally {
  await browser.close();
}

console.log(JSON.stringify(result));
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
