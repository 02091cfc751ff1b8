/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The bot's start endpoint, e.g. http://localhost:7860/start. */
  readonly VITE_BOT_START_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
