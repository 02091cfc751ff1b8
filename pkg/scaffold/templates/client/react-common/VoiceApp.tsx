"use client";

import { useCallback, useMemo, useState } from "react";
import { RTVIEvent, type PipecatClient, type TransportState } from "@pipecat-ai/client-js";
import { ConsoleTemplate, FullScreenContainer } from "@pipecat-ai/voice-ui-kit";
import { APP_TITLE, target } from "./config";
import { TRANSPORTS, type TransportOption } from "./transports";

const IDLE_STATES: readonly TransportState[] = ["disconnected", "initialized", "error"];

/**
 * The whole page: the Pipecat voice UI kit's console (connect and
 * disconnect, microphone and devices, the bot's audio, the live transcript,
 * text input, metrics and the event log) on the transport picked. Switching
 * the transport (only while disconnected) starts a new client.
 */
export default function VoiceApp() {
  const [option, setOption] = useState<TransportOption>(TRANSPORTS[0]);
  const [state, setState] = useState<TransportState>("disconnected");

  // A new transport (and media manager) for each client.
  const transportOptions = useMemo(() => option.options(target()), [option]);
  const startBotParams = useMemo(() => {
    const t = target();
    return { endpoint: t.startURL, headers: t.headers, requestData: option.startRequest };
  }, [option]);
  const onClient = useCallback((client: PipecatClient) => {
    client.on(RTVIEvent.TransportStateChanged, setState);
  }, []);

  return (
    <FullScreenContainer>
      {TRANSPORTS.length > 1 && (
        <div className="transport-bar">
          <label>
            Transport{" "}
            <select
              name="transport"
              value={option.id}
              disabled={!IDLE_STATES.includes(state)}
              onChange={(e) => {
                const next = TRANSPORTS.find((t) => t.id === e.target.value);
                if (next) setOption(next);
              }}
            >
              {TRANSPORTS.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      <ConsoleTemplate
        key={option.id}
        titleText={APP_TITLE}
        transportType={option.id}
        transportOptions={transportOptions}
        startBotParams={startBotParams}
        onClient={onClient}
        noUserVideo
        noScreenControl
        noBotVideo
        noDTMF
      />
    </FullScreenContainer>
  );
}
