// Server-side helpers of the API routes that forward the browser's calls to the
// bot. The target and its public key (.env.local) are read here, on the server
// only.
import { NextResponse } from "next/server";

/**
 * The root of the bot's endpoints: "<root>/start" starts a session and
 * "<root>/sessions/<id>/<path>" reaches it, the shape of both the Pipecat
 * development runner (BOT_START_URL without "/start") and the platform
 * (PLATFORM_URL/v1/public/AGENT_NAME).
 */
function botRoot(): string {
  const agent = process.env.AGENT_NAME?.trim();
  if (agent) {
    const platform = (process.env.PLATFORM_URL || "http://127.0.0.1:8787").replace(/\/+$/, "");
    return `${platform}/v1/public/${encodeURIComponent(agent)}`;
  }
  const start = process.env.BOT_START_URL || "http://localhost:7860/start";
  return start.replace(/\/start\/?$/, "");
}

/** The bot's start endpoint. */
export function botStartURL(): string {
  return `${botRoot()}/start`;
}

/** The URL of a path inside a started session. */
export function botSessionURL(sessionId: string, path: string): string {
  return `${botRoot()}/sessions/${encodeURIComponent(sessionId)}/${path}`;
}

/** Forwards a JSON request to the bot and relays its answer. */
export async function forward(url: string, method: string, body: string): Promise<Response> {
  const headers = new Headers({ "Content-Type": "application/json" });
  const key = process.env.AGENT_NAME?.trim() ? process.env.PUBLIC_KEY : undefined;
  if (key) {
    headers.set("Authorization", `Bearer ${key}`);
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
