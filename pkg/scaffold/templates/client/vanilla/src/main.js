import { PipecatClient } from "@pipecat-ai/client-js";
import { TARGET } from "./platform.js";
import { TRANSPORTS as ALL_TRANSPORTS } from "./transports.js";
import "./styles.css";

// A deployed agent is called with the transports it can use.
const TRANSPORTS = TARGET.platform ? ALL_TRANSPORTS.filter((t) => t.platformRequest) : ALL_TRANSPORTS;

const STATUS_LABELS = {
  disconnected: "Disconnected",
  initializing: "Starting devices…",
  initialized: "Disconnected",
  authenticating: "Starting bot…",
  authenticated: "Bot started",
  connecting: "Connecting…",
  connected: "Waiting for bot…",
  ready: "Connected",
  disconnecting: "Disconnecting…",
  error: "Error",
};
const IDLE_STATES = ["disconnected", "initialized", "error"];

/** @param {string} id */
function element(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html has no element with id "${id}"`);
  return el;
}

const ui = {
  status: element("status"),
  transportField: element("transport-field"),
  transport: /** @type {HTMLSelectElement} */ (element("transport")),
  connect: /** @type {HTMLButtonElement} */ (element("connect")),
  mic: /** @type {HTMLButtonElement} */ (element("mic")),
  micState: element("mic-state"),
  error: element("error"),
  empty: element("transcript-empty"),
  transcript: element("transcript"),
  audio: /** @type {HTMLAudioElement} */ (element("bot-audio")),
  textForm: /** @type {HTMLFormElement} */ (element("text-form")),
  text: /** @type {HTMLInputElement} */ (element("text")),
  send: /** @type {HTMLButtonElement} */ (element("send")),
};

/** @type {PipecatClient | null} the client of the current session */
let client = null;
let state = "disconnected";

for (const option of TRANSPORTS) {
  ui.transport.append(new Option(option.label, option.id));
}
ui.transportField.hidden = TRANSPORTS.length < 2;

/** Shows the connection and microphone state. */
function render() {
  const idle = IDLE_STATES.includes(state);
  const live = state === "connected" || state === "ready";
  ui.status.dataset.state = state;
  ui.status.textContent = STATUS_LABELS[state] ?? state;
  ui.connect.textContent = idle ? "Connect" : live ? "Disconnect" : "Cancel";
  ui.connect.disabled = state === "disconnecting";
  ui.transport.disabled = !idle;
  const micOn = client ? client.isMicEnabled : false;
  ui.mic.disabled = !live;
  ui.mic.textContent = micOn ? "Mute microphone" : "Unmute microphone";
  ui.micState.dataset.mic = micOn ? "on" : "off";
  ui.micState.textContent = `Microphone ${micOn ? "on" : "off"}`;
  ui.text.disabled = state !== "ready";
  ui.send.disabled = state !== "ready";
}

/** @param {string | null} message */
function showError(message) {
  ui.error.textContent = message ?? "";
  ui.error.hidden = !message;
}

// ---- transcript ----------------------------------------------------------

/** @type {HTMLLIElement | null} the user's words still being recognised */
let interim = null;

/**
 * Appends text to the last line when it is from the same speaker, or starts a
 * new line.
 * @param {"user" | "assistant"} role
 * @param {string} text
 */
function addText(role, text) {
  const last = /** @type {HTMLLIElement | null} */ (ui.transcript.lastElementChild);
  if (last && last !== interim && last.dataset.role === role) {
    const body = last.querySelector(".text");
    if (body) body.textContent = `${body.textContent} ${text}`.trim();
  } else {
    const li = document.createElement("li");
    li.dataset.role = role;
    const speaker = document.createElement("span");
    speaker.className = "speaker";
    speaker.textContent = role === "user" ? "You" : "Bot";
    const body = document.createElement("span");
    body.className = "text";
    body.textContent = text;
    li.append(speaker, body);
    if (interim) {
      ui.transcript.insertBefore(li, interim);
    } else {
      ui.transcript.append(li);
    }
  }
  ui.empty.hidden = true;
  ui.transcript.scrollTop = ui.transcript.scrollHeight;
}

/** @param {import("@pipecat-ai/client-js").TranscriptData} data */
function onUserTranscript(data) {
  if (data.final) {
    interim?.remove();
    interim = null;
    addText("user", data.text);
    return;
  }
  if (!interim) {
    interim = document.createElement("li");
    interim.dataset.role = "user";
    interim.className = "interim";
    ui.transcript.append(interim);
  }
  interim.textContent = data.text;
  ui.empty.hidden = true;
}

/** @param {import("@pipecat-ai/client-js").BotOutputData} data */
function onBotOutput(data) {
  // Word-by-word events repeat the sentences, and later events of a segment
  // only report how much of it has been spoken.
  if (data.aggregated_by === "word") return;
  if (data.spoken_status && data.spoken_status !== "new") return;
  addText("assistant", data.text);
}

// ---- session -------------------------------------------------------------

function selectedTransport() {
  return TRANSPORTS.find((t) => t.id === ui.transport.value) ?? TRANSPORTS[0];
}

async function connect() {
  showError(TARGET.problem);
  const option = selectedTransport();
  if (TARGET.problem) return;
  if (!option) {
    showError("A deployed agent is called with SmallWebRTC, and this page was generated without it.");
    return;
  }
  client = new PipecatClient({
    transport: option.create(TARGET),
    enableMic: true,
    enableCam: false,
    callbacks: {
      onTransportStateChanged: (next) => {
        state = next;
        render();
      },
      onMicUpdated: () => render(),
      onTrackStarted: (track, participant) => {
        if (track.kind !== "audio" || participant?.local) return;
        ui.audio.srcObject = new MediaStream([track]);
        ui.audio.play().catch((e) => showError(`Cannot play the bot's audio: ${e.message}`));
      },
      onDisconnected: () => {
        ui.audio.srcObject = null;
        render();
      },
      onUserTranscript,
      onBotOutput,
      onError: (message) => {
        const data = /** @type {{ message?: unknown }} */ (message.data ?? {});
        showError(typeof data.message === "string" ? data.message : "The bot reported an error.");
      },
    },
  });
  try {
    await client.startBotAndConnect({
      endpoint: TARGET.startUrl,
      headers: TARGET.headers(),
      requestData: TARGET.platform ? option.platformRequest : option.startRequest,
    });
  } catch (e) {
    showError(e instanceof Error ? e.message : String(e));
    // Back to "disconnected" whatever step failed, so Connect can retry.
    await client.disconnect().catch(() => undefined);
  }
  render();
}

ui.connect.addEventListener("click", () => {
  if (IDLE_STATES.includes(state)) {
    void connect();
  } else {
    void client?.disconnect();
  }
});

// Typed text goes to the bot as the user's words.
ui.textForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = ui.text.value.trim();
  if (!client || state !== "ready" || !text) return;
  client.sendText(text).catch((e) => showError(`Cannot send the text: ${e.message}`));
  addText("user", text);
  ui.text.value = "";
});

ui.mic.addEventListener("click", () => {
  if (!client) return;
  client.enableMic(!client.isMicEnabled);
  render();
});

render();
