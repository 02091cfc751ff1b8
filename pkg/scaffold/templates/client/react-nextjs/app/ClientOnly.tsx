"use client";

import dynamic from "next/dynamic";

// The Pipecat client and its transports use browser-only APIs (WebRTC, media
// devices), so the voice UI is rendered in the browser only.
const VoiceApp = dynamic(() => import("./VoiceApp"), {
  ssr: false,
  loading: () => <p className="transport-bar">Loading…</p>,
});

export default function ClientOnly() {
  return <VoiceApp />;
}
