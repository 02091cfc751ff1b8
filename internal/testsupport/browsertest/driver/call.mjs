// Makes a call with a generated web client in headless Chromium, with a fake
// microphone, the way a user would: Connect, wait for the bot, listen, type a
// message, Disconnect. Used by pkg/platform's browser call test; run it by
// hand with
//
//   node call.mjs --url http://127.0.0.1:4173/ --allow http://127.0.0.1:8080 \
//     [--text "hello"] [--expect "line the transcript must show" ...] \
//     [--hold] [--chromium /usr/bin/chromium]
//
// --hold: before Disconnect it prints a line HOLD and waits for a line on
// its stdin (the caller looks at the call meanwhile).
//
// Every request to an origin other than the page's and the --allow ones is
// blocked and reported. It prints one JSON line: the times (ms since the
// navigation started) the page loaded and reached "ready", the transcript,
// the bot audio's peak level (WebAudio, 0 to 1), the requests made and
// blocked, every console message and page error; problems go to stderr and
// make it exit 1.
import { launch } from "./browser.mjs";
import { parseArgs } from "node:util";
import { createInterface } from "node:readline";

const { values: opts } = parseArgs({
  options: {
    url: { type: "string" },
    allow: { type: "string", multiple: true, default: [] },
    text: { type: "string", default: "" },
    expect: { type: "string", multiple: true, default: [] },
    hold: { type: "boolean", default: false },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    timeout: { type: "string", default: "30000" },
  },
});
if (!opts.url) {
  console.error("usage: node call.mjs --url URL [--allow ORIGIN ...] [--text T] [--expect LINE ...]");
  process.exit(2);
}
const timeout = Number(opts.timeout);
const allowed = new Set([new URL(opts.url).origin, ...opts.allow.map((u) => new URL(u).origin)]);

const browser = await launch(opts.chromium, [
  "--use-fake-device-for-media-stream",
  "--use-fake-ui-for-media-stream",
  "--autoplay-policy=no-user-gesture-required",
]);

const problems = [];
const result = { url: opts.url, requests: [], blocked: [], console: [], pageErrors: [] };
try {
  const context = await browser.newContext();
  await context.route("**/*", (route) => {
    const url = route.request().url();
    let origin = "";
    try {
      origin = new URL(url).origin;
    } catch {}
    if (allowed.has(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    result.blocked.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("request", (req) => result.requests.push(`${req.method()} ${req.url()}`));
  page.on("console", (msg) => result.console.push(`${msg.type()}: ${msg.text()}`));
  page.on("pageerror", (err) => result.pageErrors.push(String(err)));

  const response = await page.goto(opts.url, { waitUntil: "load", timeout });
  if (!response?.ok()) problems.push(`GET ${opts.url}: HTTP ${response?.status()}`);
  result.loadedMs = await page.evaluate(() => performance.now());

  await page.getByRole("button", { name: "Connect", exact: true }).click({ timeout });
  await page.locator('#status[data-state="ready"]').waitFor({ timeout });
  result.readyMs = await page.evaluate(() => performance.now());

  for (const line of opts.expect) {
    await page.locator("#transcript li", { hasText: line }).first().waitFor({ timeout }).catch(() => problems.push(`transcript without ${JSON.stringify(line)}`));
  }

  // The bot's audio, as the page plays it: its peak over two seconds.
  result.audioLevel = await page.evaluate(async () => {
    const audio = /** @type {HTMLAudioElement} */ (document.getElementById("bot-audio"));
    const deadline = Date.now() + 10000;
    while (!audio.srcObject && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (!audio.srcObject) return -1;
    const ctx = new AudioContext();
    await ctx.resume();
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 2048;
    ctx.createMediaStreamSource(/** @type {MediaStream} */ (audio.srcObject)).connect(analyser);
    const buf = new Float32Array(analyser.fftSize);
    let peak = 0;
    const end = Date.now() + 2000;
    while (Date.now() < end) {
      analyser.getFloatTimeDomainData(buf);
      for (const v of buf) peak = Math.max(peak, Math.abs(v));
      await new Promise((r) => setTimeout(r, 50));
    }
    await ctx.close();
    return peak;
  });

  if (opts.text) {
    await page.locator("#text").fill(opts.text, { timeout });
    await page.getByRole("button", { name: "Send", exact: true }).click({ timeout });
    await page.locator("#transcript li", { hasText: `You wrote: ${opts.text}` }).first().waitFor({ timeout }).catch(() => problems.push("no reply to the typed text"));
  }
  result.transcript = await page.locator("#transcript li").allTextContents();

  if (opts.hold) {
    console.log("HOLD");
    const lines = createInterface({ input: process.stdin });
    await new Promise((resolve) => lines.once("line", resolve));
    lines.close();
  }

  await page.getByRole("button", { name: "Disconnect", exact: true }).click({ timeout });
  await page.locator('#status[data-state="disconnected"]').waitFor({ timeout });
  result.error = (await page.locator("#error").isVisible()) ? await page.locator("#error").textContent() : null;
  if (result.error) problems.push(`the page shows an error: ${result.error}`);
} catch (err) {
  problems.push(String(err));
} finally {
  await browser.close();
}

for (const e of result.pageErrors) problems.push(`page error: ${e}`);
if (result.blocked.length > 0) problems.push(`requests to other hosts: ${result.blocked.join(", ")}`);
console.log(JSON.stringify(result));
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
