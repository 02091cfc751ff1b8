// Makes a call with a generated web client in headless Chromium, with a fake
// microphone, the way a user would: Connect, wait for the bot, listen, type a
// message, Disconnect. Used by pkg/platform's browser call tests; run it by
// hand with
//
//   node call.mjs --url http://127.0.0.1:4173/ --allow http://127.0.0.1:8080 \
//     [--ui vanilla|console] [--text "hello"] \
//     [--expect "line the transcript must show" ...] [--hold] \
//     [--chromium /usr/bin/chromium]
//
// --ui is the page's kind: "vanilla" (the vanilla client's page) or
// "console" (the React clients: the Pipecat voice UI kit's ConsoleTemplate).
// --hold: before Disconnect it prints a line HOLD and waits for a line on
// its stdin (the caller looks at the call meanwhile).
//
// Every request to an origin other than the page's and the --allow ones is
// blocked and reported. It prints one JSON line: the times (ms since the
// navigation started) the page loaded, Connect was clicked and the page
// reached "ready", the transcript, the bot audio's peak level (WebAudio, 0
// to 1), the requests made, blocked and sent with an Authorization header,
// every console message and page error; problems go to stderr and make it
// exit 1.
import { launch } from "./browser.mjs";
import { parseArgs } from "node:util";
import { createInterface } from "node:readline";

/** @typedef {import("playwright-core").Page} Page */
/** @typedef {import("playwright-core").Locator} Locator */

/**
 * What the driver finds on each kind of page: the state to wait for before
 * Connect (null: none), the state reached (and the same as a query the page
 * itself watches, `css` or `xpath`, which times it), a line of the transcript and all
 * of them, the bot's audio element (a selector), how text is typed and
 * sent, and the error the page shows (null for none).
 *
 * @type {Record<string, {
 *   idle: ((page: Page) => Locator) | null,
 *   ready: (page: Page) => Locator, readyQuery: { css?: string, xpath?: string },
 *   disconnected: (page: Page) => Locator,
 *   line: (page: Page, text: string) => Locator, lines: (page: Page) => Promise<string[]>,
 *   audio: string, send: (page: Page, text: string) => Promise<void>,
 *   error: (page: Page) => Promise<string | null>,
 * }>}
 */
const UIS = {
  // The vanilla client: its own ids.
  vanilla: {
    idle: null,
    ready: (page) => page.locator('#status[data-state="ready"]'),
    readyQuery: { css: '#status[data-state="ready"]' },
    disconnected: (page) => page.locator('#status[data-state="disconnected"]'),
    line: (page, text) => page.locator("#transcript li", { hasText: text }).first(),
    lines: (page) => page.locator("#transcript li").allTextContents(),
    audio: "#bot-audio",
    send: async (page, text) => {
      await page.locator("#text").fill(text, { timeout });
      await page.getByRole("button", { name: "Send", exact: true }).click({ timeout });
    },
    error: async (page) => ((await page.locator("#error").isVisible()) ? await page.locator("#error").textContent() : null),
  },
  // The voice UI kit's console: it offers no test ids, so what a user
  // reads: the Status panel's "Client" and "Agent" rows (a Connect before
  // the client has initialized the devices does nothing), the Conversation
  // tab (the event log repeats the lines: not there), the <audio> element
  // the kit plays the bot's track in, the conversation's text box (Enter
  // sends), the "Unable to connect" banner.
  console: {
    idle: (page) => consoleStatus(page, "Client", "initialized").first(),
    ready: (page) => consoleStatus(page, "Agent", "ready").first(),
    readyQuery: { xpath: consoleStatusXPath("Agent", "ready") },
    disconnected: (page) => consoleStatus(page, "Client", "disconnected").first(),
    line: (page, text) => conversation(page).getByText(text).first(),
    lines: async (page) =>
      (await conversation(page).innerText())
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean),
    audio: "audio",
    send: async (page, text) => {
      const box = conversation(page).getByRole("textbox");
      await box.fill(text, { timeout });
      await box.press("Enter", { timeout });
    },
    error: async (page) => {
      const banner = page.getByText("Unable to connect").filter({ visible: true });
      return (await banner.count()) > 0 ? await banner.first().textContent() : null;
    },
  },
};

/** The console's visible Conversation tab. */
function conversation(/** @type {Page} */ page) {
  return page.getByRole("tabpanel", { name: "Conversation" }).filter({ visible: true });
}

/** The console's visible Status row `who` ("Client", "Agent") showing state. */
function consoleStatus(/** @type {Page} */ page, /** @type {string} */ who, /** @type {string} */ state) {
  return page.locator(`xpath=${consoleStatusXPath(who, state)}`).filter({ visible: true });
}

/** The XPath of the console's Status row `who` showing state. */
function consoleStatusXPath(/** @type {string} */ who, /** @type {string} */ state) {
  return `//dt[normalize-space()="${who}"]/following-sibling::dd[1][normalize-space()="${state}"]`;
}

/**
 * Records in the page (window.__readyAt, ms since the navigation started)
 * the moment query first matches a visible element: a MutationObserver sees
 * every change as it is made, where a locator's wait polls (at up to
 * 500 ms apart) and would time the poll.
 */
async function watchReady(/** @type {Page} */ page, /** @type {{ css?: string, xpath?: string }} */ query) {
  await page.evaluate((q) => {
    const find = () =>
      q.css ? document.querySelector(q.css) : document.evaluate(q.xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    const seen = () => {
      const el = find();
      return el instanceof Element && el.checkVisibility();
    };
    if (seen()) {
      window.__readyAt = performance.now();
      return;
    }
    const observer = new MutationObserver(() => {
      if (seen()) {
        window.__readyAt = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }, query);
}

const { values: opts } = parseArgs({
  options: {
    url: { type: "string" },
    allow: { type: "string", multiple: true, default: [] },
    text: { type: "string", default: "" },
    expect: { type: "string", multiple: true, default: [] },
    ui: { type: "string", default: "vanilla" },
    hold: { type: "boolean", default: false },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    timeout: { type: "string", default: "30000" },
  },
});
if (!opts.url) {
  console.error("usage: node call.mjs --url URL [--allow ORIGIN ...] [--ui vanilla|console] [--text T] [--expect LINE ...]");
  process.exit(2);
}
const timeout = Number(opts.timeout);
const ui = UIS[opts.ui];
if (!ui) {
  console.error(`--ui: one of ${Object.keys(UIS).join(", ")}`);
  process.exit(2);
}
const allowed = new Set([new URL(opts.url).origin, ...opts.allow.map((u) => new URL(u).origin)]);

const browser = await launch(opts.chromium, [
  "--use-fake-device-for-media-stream",
  "--use-fake-ui-for-media-stream",
  "--autoplay-policy=no-user-gesture-required",
]);

const problems = [];
const result = { url: opts.url, requests: [], blocked: [], authorized: [], console: [], pageErrors: [] };
try {
  const context = await browser.newContext();
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    let origin = "";
    try {
      origin = new URL(url).origin;
    } catch {}
    if (url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    if (allowed.has(origin)) {
      if ((await route.request().allHeaders()).authorization) result.authorized.push(`${route.request().method()} ${url}`);
      return route.continue();
    }
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

  if (ui.idle) await ui.idle(page).waitFor({ timeout });
  await watchReady(page, ui.readyQuery);
  result.connectMs = await page.evaluate(() => performance.now());
  await page.getByRole("button", { name: "Connect", exact: true }).click({ timeout });
  await ui.ready(page).waitFor({ timeout });
  result.readyMs = await page.evaluate(() => window.__readyAt ?? performance.now());

  for (const line of opts.expect) {
    await ui.line(page, line).waitFor({ timeout }).catch(() => problems.push(`transcript without ${JSON.stringify(line)}`));
  }

  // The bot's audio, as the page plays it: its peak over two seconds.
  result.audioLevel = await page.evaluate(async (selector) => {
    const playing = () => [...document.querySelectorAll(selector)].find((a) => a instanceof HTMLMediaElement && a.srcObject);
    const deadline = Date.now() + 10000;
    while (!playing() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const audio = playing();
    if (!audio) return -1;
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
  }, ui.audio);

  if (opts.text) {
    await ui.send(page, opts.text);
    await ui.line(page, `You wrote: ${opts.text}`).waitFor({ timeout }).catch(() => problems.push("no reply to the typed text"));
  }
  result.transcript = await ui.lines(page);

  if (opts.hold) {
    console.log("HOLD");
    const lines = createInterface({ input: process.stdin });
    await new Promise((resolve) => lines.once("line", resolve));
    lines.close();
  }

  await page.getByRole("button", { name: "Disconnect", exact: true }).click({ timeout });
  await ui.disconnected(page).waitFor({ timeout });
  result.error = await ui.error(page);
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
