// parse-prometheus-text-format ships no types: its one function (its module.exports), as
// metrics-queue-counts.ts uses it. Imported statically so that bundles (the single-file
// kubefedctl, tools/package/) include it.
declare module 'parse-prometheus-text-format' {
  /** The metric families of a Prometheus text exposition; sample values are the text as written. */
  export default function parsePrometheusTextFormat(
    text: string,
  ): { name: string; metrics: { value?: string; labels?: Record<string, string> }[] }[];
}
