import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import VoiceApp from "./VoiceApp";
import "@pipecat-ai/voice-ui-kit/styles.css";
import "./voice-app.css";

const root = document.getElementById("root");
if (!root) {
  throw new Error('index.html has no element with id "root"');
}

createRoot(root).render(
  <StrictMode>
    <VoiceApp />
  </StrictMode>,
);
