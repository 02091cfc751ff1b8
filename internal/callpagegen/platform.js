// The call page's target (it replaces the generated client's src/platform.js
// in the page botkit-platform serves at /call/<agent>): the agent is the last
// segment of the page's path, the platform is the page's own origin, and the
// public key is the URL's fragment, #key=pk_…, which the browser never sends
// to a server. The page takes the fragment out of the address bar once read.

const agentName = decodeURIComponent(location.pathname.replace(/\/+$/, "").split("/").pop() || "");
const publicKey = new URLSearchParams(location.hash.slice(1)).get("key") || "";
if (location.hash) {
  history.replaceState(null, "", location.pathname + location.search);
}
if (agentName) {
  document.title = agentName;
  const heading = document.querySelector("h1");
  if (heading) heading.textContent = agentName;
}

/**
 * @typedef {object} Target
 * @property {string} startUrl where the page POSTs to start a session
 * @property {string | undefined} offerUrlTemplate where SmallWebRTC sends its
 *   offer (":sessionId" is replaced)
 * @property {() => Headers | undefined} headers the headers of the start and
 *   offer requests
 * @property {boolean} platform whether this is a deployed agent (always)
 * @property {string | null} problem what is wrong, if anything
 */

const base = `${location.origin}/v1/public/${encodeURIComponent(agentName)}`;

/** @type {Target} */
export const TARGET = {
  startUrl: `${base}/start`,
  offerUrlTemplate: `${base}/sessions/:sessionId/api/offer`,
  headers: () => new Headers({ Authorization: `Bearer ${publicKey}` }),
  platform: true,
  problem: publicKey
    ? null
    : "This page needs a public key after # in its address (#key=pk_…): open it with botkit cloud agents start NAME --open.",
};

// The library's own media manager: the page talks to nothing but the
// platform and the agent.
export const DAILY_MEDIA_MANAGER = false;
