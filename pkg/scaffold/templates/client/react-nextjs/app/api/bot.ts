// Server-side helpers of the API routes that forward the browser's calls to the
// bot. BOT_START_URL and BOT_API_KEY are read here, on the server only.
import { NextResponse } from "next/server";

const DEFAULT_START_URL = "http://localhost:7860/start";

/** The bot's start endpoint (BOT_START_URL), by default the local runner. */
export function botStartURL(): string {
  return process.env.BOT_START_URL || DEFAULT_START_URL;
}

/**
 * The URL of a path inside a started session: the start URL with its final
 * "/start" replaced by "/sessions/<id>/<path>" (the shape of both the Pipecat
 * development runner and Pipecat Cloud).
 */
export function botSessionURL(sessionId: string, path: string): string {
  const base = botStartURL().replace(/\/start\/?$/, "");
  return `${base}/sessions/${encodeURIComponent(sessionId)}/${path}`;
}

/** Forwards a JSON request to the bot and relays its answer. */
export async function forward(url: string, method: string, body: string): Promise<Response> {
  const headers = new Headers({ "Content-Type": "application/json" });
  const apiKey = process.env.BOT_API_KEY;
  if (apiKey) {
    headers.set("Authorization", `Bearer ${apiKey}`);
  }
  let upstream: Response;
  try {
    upstream = await fetch(url, { method, headers, body, cache: "no-store" });
  } catch {
    return NextResponse.json(
      { detail: `Could not reach the bot at ${new URL(url).origin}; is it running?` },
      { status: 502 },
    );
  }
  return new Response(await upstream.text(), {
    status: upstream.status,
    headers: { "Content-Type": upstream.headers.get("Content-Type") ?? "application/json" },
  });
}
