/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The local runner's start endpoint, e.g. http://localhost:7860/start. */
  readonly VITE_BOT_START_URL?: string;
  /** A deployed agent's name: set, the page calls it through the platform. */
  readonly VITE_AGENT_NAME?: string;
  /** The platform's URL, e.g. http://127.0.0.1:8787. */
  readonly VITE_PLATFORM_URL?: string;
  /** A public key (pk_…) of the agent's organization. */
  readonly VITE_PUBLIC_KEY?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
