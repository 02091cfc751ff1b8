import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// https://vite.dev/config/
export default defineConfig({
  plugins: [react()],
  build: {
    // The Daily and WebRTC client libraries alone are over 500 kB.
    chunkSizeWarningLimit: 1500,
  },
});
