"use client";

import { useCallback, useState, type ReactNode } from "react";
import {
  PipecatClient,
  RTVIEvent,
  type RTVIMessage,
  type TransportState,
} from "@pipecat-ai/client-js";
import {
  PipecatClientAudio,
  PipecatClientProvider,
  usePipecatClient,
  usePipecatClientMicControl,
  usePipecatClientTransportState,
  usePipecatConversation,
  useRTVIClientEvent,
  type ConversationMessage,
  type ConversationMessagePart,
} from "@pipecat-ai/client-react";
import { APP_TITLE, START_URL } from "./config";
import { TRANSPORTS, type TransportOption } from "./transports";

function createClient(option: TransportOption): PipecatClient {
  return new PipecatClient({
    transport: option.create(),
    enableMic: true,
    enableCam: false,
  });
}

/**
 * The whole page. One PipecatClient per selected transport; switching the
 * transport (only possible while disconnected) replaces the client.
 */
export default function VoiceApp() {
  const [option, setOption] = useState<TransportOption>(TRANSPORTS[0]);
  const [client, setClient] = useState<PipecatClient>(() =>
    createClient(TRANSPORTS[0]),
  );

  const selectTransport = useCallback((id: string) => {
    const next = TRANSPORTS.find((t) => t.id === id);
    if (!next) return;
    setOption(next);
    setClient(createClient(next));
  }, []);

  return (
    <PipecatClientProvider client={client} key={option.id}>
      <Session option={option} onSelectTransport={selectTransport} />
      <PipecatClientAudio />
    </PipecatClientProvider>
  );
}

const STATUS_LABELS: Record<TransportState, string> = {
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

const IDLE_STATES: readonly TransportState[] = ["disconnected", "initialized", "error"];

function Session({
  option,
  onSelectTransport,
}: {
  option: TransportOption;
  onSelectTransport: (id: string) => void;
}) {
  const client = usePipecatClient();
  const state = usePipecatClientTransportState();
  const { enableMic, isMicEnabled } = usePipecatClientMicControl();
  const [error, setError] = useState<string | null>(null);

  useRTVIClientEvent(
    RTVIEvent.Error,
    useCallback((message: RTVIMessage) => setError(errorFromData(message.data)), []),
  );

  const idle = IDLE_STATES.includes(state);
  const live = state === "connected" || state === "ready";

  const toggleConnection = async () => {
    if (!client) return;
    if (!idle) {
      await client.disconnect();
      return;
    }
    setError(null);
    try {
      await client.startBotAndConnect({
        endpoint: START_URL,
        requestData: option.startRequest,
      });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      // Back to "disconnected" whatever step failed, so Connect can retry.
      await client.disconnect().catch(() => undefined);
    }
  };

  return (
    <main className="app">
      <header className="app-header">
        <h1>{APP_TITLE}</h1>
        <span className="status" data-state={state} role="status">
          {STATUS_LABELS[state]}
        </span>
      </header>

      <section className="panel controls" aria-label="Call controls">
        {TRANSPORTS.length > 1 && (
          <label>
            Transport
            <select
              value={option.id}
              disabled={!idle}
              onChange={(e) => onSelectTransport(e.target.value)}
            >
              {TRANSPORTS.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <button
          type="button"
          className="primary"
          disabled={state === "disconnecting"}
          onClick={() => void toggleConnection()}
        >
          {idle ? "Connect" : live ? "Disconnect" : "Cancel"}
        </button>
        <button type="button" disabled={!live} onClick={() => enableMic(!isMicEnabled)}>
          {isMicEnabled ? "Mute microphone" : "Unmute microphone"}
        </button>
        <span className="mic-state" data-mic={isMicEnabled ? "on" : "off"}>
          Microphone {isMicEnabled ? "on" : "off"}
        </span>
      </section>

      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}

      <Transcript />
    </main>
  );
}

function Transcript() {
  const { messages } = usePipecatConversation();
  const shown = messages.filter(
    (m: ConversationMessage) => m.role === "user" || m.role === "assistant",
  );

  return (
    <section className="panel transcript" aria-label="Conversation transcript">
      <h2>Transcript</h2>
      {shown.length === 0 ? (
        <p className="empty">Connect and start talking; the conversation appears here.</p>
      ) : (
        <ol aria-live="polite">
          {shown.map((m, i) => (
            <li
              key={`${m.createdAt}-${i}`}
              data-role={m.role}
              className={m.final === false ? "interim" : undefined}
            >
              <span className="speaker">{m.role === "user" ? "You" : "Bot"}</span>
              {m.parts.map((part, j) => (
                <span key={j}>{partText(part)}</span>
              ))}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Text of one message part: bot output carries spoken and not-yet-spoken text. */
function partText(part: ConversationMessagePart): ReactNode {
  const separator = part.needsSeparator ? " " : "";
  const text = part.text;
  if (typeof text === "object" && text !== null && "spoken" in text && "unspoken" in text) {
    return separator + text.spoken + text.unspoken;
  }
  return (
    <>
      {separator}
      {text}
    </>
  );
}

function errorFromData(data: unknown): string {
  if (typeof data === "object" && data !== null && "message" in data) {
    const { message } = data;
    if (typeof message === "string" && message !== "") return message;
  }
  return "The bot reported an error.";
}
