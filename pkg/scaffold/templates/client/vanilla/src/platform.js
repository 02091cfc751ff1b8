// Where Connect starts a session, from .env.local (copy env.example):
//
// - a deployed agent: VITE_PLATFORM_URL, VITE_AGENT_NAME and VITE_PUBLIC_KEY
//   all set. The page POSTs to <platform>/v1/public/<agent>/start with the
//   public key and sends its WebRTC offer to
//   <platform>/v1/public/<agent>/sessions/<sessionId>/api/offer. botkit's
//   platform (`botkit-platform serve`) and Pipecat Cloud
//   (https://api.pipecat.daily.co) serve these paths.
// - otherwise the bot's own start endpoint, VITE_BOT_START_URL: by default
//   the Pipecat development runner (`uv run bot.py` in ../server).
//
// A public key (pk_…) is made for browsers: it only starts and reaches the
// sessions of its organization's agents, and the platform answers only the
// page origins the key lists. Never put any other key here: every VITE_*
// value is built into the page.

const platformURL = (import.meta.env.VITE_PLATFORM_URL || "").replace(/\/+$/, "");
const agentName = import.meta.env.VITE_AGENT_NAME || "";
const publicKey = import.meta.env.VITE_PUBLIC_KEY || "";

/**
 * @typedef {object} Target
 * @property {string} startUrl where the page POSTs to start a session
 * @property {string | undefined} offerUrlTemplate where SmallWebRTC sends its
 *   offer (":sessionId" is replaced), or undefined for the transport's default:
 *   the start URL with /start replaced by /sessions/<sessionId>/api/offer
 * @property {() => Headers | undefined} headers the headers of the start and
 *   offer requests
 * @property {boolean} platform whether this is a deployed agent
 * @property {string | null} problem what is wrong with the settings, if anything
 */

/** @returns {Target} */
function target() {
  if (!platformURL && !agentName && !publicKey) {
    return {
      startUrl: import.meta.env.VITE_BOT_START_URL || "http://localhost:7860/start",
      offerUrlTemplate: undefined,
      headers: () => undefined,
      platform: false,
      problem: null,
    };
  }
  const missing = [
    ["VITE_PLATFORM_URL", platformURL],
    ["VITE_AGENT_NAME", agentName],
    ["VITE_PUBLIC_KEY", publicKey],
  ]
    .filter(([, value]) => !value)
    .map(([name]) => name);
  const base = `${platformURL}/v1/public/${encodeURIComponent(agentName)}`;
  return {
    startUrl: `${base}/start`,
    offerUrlTemplate: `${base}/sessions/:sessionId/api/offer`,
    headers: () => new Headers({ Authorization: `Bearer ${publicKey}` }),
    platform: true,
    problem: missing.length > 0 ? `Set ${missing.join(", ")} in .env.local to call a deployed agent.` : null,
  };
}

export const TARGET = target();

// The SmallWebRTC transport's default media manager is Daily's, which loads
// Daily's call-machine bundle from c.daily.co (and reports errors to
// sentry.io). The page uses the library's own WavMediaManager instead, so it
// talks to nothing but the bot. VITE_DAILY_MEDIA_MANAGER=true brings Daily's
// back.
export const DAILY_MEDIA_MANAGER = import.meta.env.VITE_DAILY_MEDIA_MANAGER === "true";
