import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by Wharf at /console/ under `default-src 'self'`: no inline script, no CDN.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0 },
});
