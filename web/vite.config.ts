import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig(({ command }) => {
  // A build is always the production bundle, even when it runs under NODE_ENV=test (the test runner
  // builds it): otherwise React's development build and JSX runtime (twice the size) would be served.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    root: import.meta.dirname,
    base: '/app/',
    plugins: [react()],
    build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false },
  };
});
