import { defineConfig } from "vite";

// https://vite.dev/config/
export default defineConfig({
  build: {
    // The Daily and WebRTC client libraries alone are over 500 kB.
    chunkSizeWarningLimit: 1500,
  },
});
