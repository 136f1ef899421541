// The UI is built once into `dist/` and loaded both by the Tauri window (from its bundled
// assets) and by `houserule serve` (from any path): every asset path is relative.
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2021",
    // CodeMirror is the one large piece and is loaded only when the GM opens the editor.
    chunkSizeWarningLimit: 700,
    modulePreload: { polyfill: false },
  },
  server: { strictPort: false },
});
