// Opens a generated React client in headless Chromium with a fake microphone,
// waits for its ready UI, clicks Connect and reports every request the page
// attempted. Used by pkg/scaffold's browser tests; run it by hand with
//
//   node connect.mjs --url http://127.0.0.1:4173/ --screenshot /tmp/page.png \
//     [--title "my-bot"] [--chromium /usr/bin/chromium] [--transport smallwebrtc]
//
// Every request to a host other than 127.0.0.1 is aborted (the page must not
// need one) and listed in "thirdParty". After Connect it waits until the
// page sent its WebRTC offer, then --settle milliseconds more for late
// requests. It prints one JSON
// line; the exit status is 0 whenever it could drive the page (the Go test
// judges what it saw).
import { launch } from "./browser.mjs";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  options: {
    url: { type: "string" },
    screenshot: { type: "string" },
    title: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    transport: { type: "string" },
    timeout: { type: "string", default: "20000" },
    settle: { type: "string", default: "3000" },
  },
});
if (!opts.url || !opts.screenshot) {
  console.error("usage: node connect.mjs --url URL --screenshot FILE [--title T] [--transport ID]");
  process.exit(2);
}
const timeout = Number(opts.timeout);

const browser = await launch(opts.chromium, [
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
  "--autoplay-policy=no-user-gesture-required",
]);

// requests: every request the page attempted ("METHOD origin/path");
// thirdParty: those to another host than 127.0.0.1 (aborted); authorized:
// those that carried an Authorization header.
const result = { url: opts.url, requests: [], thirdParty: [], authorized: [], consoleErrors: [], pageErrors: [], problems: [] };
try {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    permissions: ["microphone"],
  });
  // Only the page's own server and the stand-in endpoints (both on
  // 127.0.0.1) may be reached; data: and blob: URLs never leave the page.
  await context.route("**/*", async (route) => {
    const req = route.request();
    const u = new URL(req.url());
    if (u.protocol === "data:" || u.protocol === "blob:" || u.hostname === "127.0.0.1") {
      const headers = await req.allHeaders();
      if (headers.authorization) result.authorized.push(`${req.method()} ${u.origin}${u.pathname}`);
      return route.continue();
    }
    return route.abort("blockedbyclient");
  });
  context.on("request", (req) => {
    const u = new URL(req.url());
    if (u.protocol === "data:" || u.protocol === "blob:") return;
    const entry = `${req.method()} ${u.origin}${u.pathname}`;
    result.requests.push(entry);
    if (u.hostname !== "127.0.0.1") result.thirdParty.push(entry);
  });
  // WebSockets are not routed: record them too.
  context.on("websocket", (ws) => {
    const u = new URL(ws.url());
    result.requests.push(`WS ${u.origin}${u.pathname}`);
    if (u.hostname !== "127.0.0.1") result.thirdParty.push(`WS ${u.origin}${u.pathname}`);
  });

  const page = await context.newPage();
  page.on("console", (msg) => {
    if (msg.type() === "error") {
      const where = msg.location();
      result.consoleErrors.push(`${msg.text()}${where.url ? ` (${where.url}:${where.lineNumber})` : ""}`);
    }
  });
  page.on("pageerror", (err) => result.pageErrors.push(String(err)));

  const response = await page.goto(opts.url, { waitUntil: "load", timeout });
  result.status = response?.status();
  result.title = await page.title();

  // The ready UI: the transport selector (when there are several), then
  // the Connect button.
  if (opts.transport) {
    const select = page.locator("select[name=transport]");
    result.transportOptions = await select.locator("option").evaluateAll((os) => os.map((o) => o.value));
    if ((await select.inputValue({ timeout })) !== opts.transport) await select.selectOption(opts.transport);
  }
  const connect = page.getByRole("button", { name: "Connect", exact: true });
  await connect.waitFor({ state: "visible", timeout });
  await page.waitForLoadState("networkidle", { timeout }).catch(() => {});
  result.loadRequests = result.requests.length;
  // What the ready page shows (its panels' titles), and its text inputs.
  result.beforeConnect = (await page.locator("body").innerText()).slice(0, 2000);
  result.textboxes = await page.getByRole("textbox").count();
  await page.screenshot({ path: opts.screenshot, fullPage: true });

  await connect.click();
  // Give the start, the offer and anything the transport fetches on its way
  // (media managers, error reporting) time to happen.
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline && !result.requests.some((r) => r.includes("/api/offer"))) {
    await page.waitForTimeout(200);
  }
  await page.waitForTimeout(Number(opts.settle));
  result.afterConnect = (await page.locator("body").innerText()).slice(0, 2000);
  await page.screenshot({ path: opts.screenshot.replace(/\.png$/, "-connected.png"), fullPage: true });
} catch (err) {
  result.problems.push(String(err));
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
