#!/usr/bin/env node
/**
 * The `kubefed-controller-manager` process: parses flags and environment, runs the controller
 * manager until SIGINT/SIGTERM (graceful stop, exit 0) or a fatal error (logged once, exit 1).
 * A bad flag exits 1 with a one-line cause naming it.
 */
import { createLogger } from '@kubefed/runtime';
import { ConfigError, HelpShown, parseConfig, VersionShown, type ControllerManagerConfig } from './config.js';
import { runControllerManager } from './manager-process.js';

async function main(): Promise<number> {
  let config: ControllerManagerConfig;
  try {
    config = parseConfig(process.argv.slice(2), process.env, {
      out: (s) => process.stdout.write(s),
      err: (s) => process.stderr.write(`kubefed-controller-manager: ${s}`),
    });
  } catch (err) {
    if (err instanceof HelpShown || err instanceof VersionShown) return 0;
    if (err instanceof ConfigError) {
      console.error(`kubefed-controller-manager: ${err.message}`);
      return 1;
    }
    throw err;
  }
  const logger = createLogger({
    level: config.logLevel,
    pretty: config.logFormat === 'pretty',
    base: { component: 'kubefed-controller-manager' },
  });
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stop.signal.aborted) return;
    logger.info({ signal }, 'shutting down');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await runControllerManager(config, { signal: stop.signal, logger });
    logger.info('stopped');
    return 0;
  } catch (err) {
    logger.fatal({ err }, 'kubefed-controller-manager failed');
    return 1;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    // Let pending log lines flush; do not wait for stray handles forever.
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (err: unknown) => {
    console.error('kubefed-controller-manager: unexpected failure:', err);
    process.exit(1);
  },
);
