/**
 * Tracing: the part of the OpenTelemetry tracing API ovnkit uses, declared
 * here so that ovnkit neither imports `@opentelemetry/api` nor needs it
 * installed. A tracer of `@opentelemetry/api` (`trace.getTracer('my-app')`)
 * is such a {@link Tracer}: pass it as the `tracer` option of
 * `connectDatabase` / `openDatabase`.
 *
 * Spans are started with `startActiveSpan`, so the caller's active span (a
 * controller's reconcile span, say) is their parent when the program has
 * registered a context manager (`AsyncLocalStorageContextManager`, which
 * the OpenTelemetry Node SDK registers). See `docs/observability.md` for
 * the spans and their attributes.
 * @module
 */

/** A span attribute's value (OpenTelemetry's `AttributeValue`). */
export type SpanAttributeValue =
  | string
  | number
  | boolean
  | readonly string[]
  | readonly number[]
  | readonly boolean[];

/** Span attributes, by name. */
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

/** The part of OpenTelemetry's `Span` ovnkit uses. */
export interface SpanLike {
  /** Set one attribute. */
  setAttribute(key: string, value: SpanAttributeValue): unknown;
  /** Set several attributes. */
  setAttributes(attributes: SpanAttributes): unknown;
  /** Record an error as an `exception` event. */
  recordException(exception: Error | string): void;
  /** Set the status: `code` 2 is OpenTelemetry's `SpanStatusCode.ERROR`. */
  setStatus(status: { code: number; message?: string }): unknown;
  /** End the span. */
  end(): void;
}

/** The span options ovnkit passes (OpenTelemetry's `SpanOptions`). */
export interface SpanOptionsLike {
  /** OpenTelemetry's `SpanKind` (0: `INTERNAL`, 2: `CLIENT`). */
  kind?: number;
  /** Attributes known at the start. */
  attributes?: SpanAttributes;
}

/** The part of OpenTelemetry's `Tracer` ovnkit uses. */
export interface Tracer {
  /** Start a span, make it active while `fn` runs, and return what `fn` returns. */
  startActiveSpan<F extends (span: SpanLike) => unknown>(
    name: string,
    options: SpanOptionsLike,
    fn: F,
  ): ReturnType<F>;
}

/** OpenTelemetry's `SpanStatusCode.ERROR`. */
export const SPAN_STATUS_ERROR = 2;
/** OpenTelemetry's `SpanKind.CLIENT`. */
export const SPAN_KIND_CLIENT = 2;
/** OpenTelemetry's `SpanKind.INTERNAL`. */
export const SPAN_KIND_INTERNAL = 0;

/** Record `error` on `span` (an `exception` event) and set its status to ERROR. */
export function recordSpanError(
  span: Pick<SpanLike, 'recordException' | 'setStatus'>,
  error: unknown,
): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SPAN_STATUS_ERROR, message: error.message });
  } else {
    const text = String(error);
    span.recordException(text);
    span.setStatus({ code: SPAN_STATUS_ERROR, message: text });
  }
}

/**
 * Run `run` and call `done` once its promise settles (`failed` and the
 * error on a rejection, also when `run` throws), before passing the result
 * on. The common step of the observed paths.
 */
export function whenSettled<T>(
  run: () => Promise<T>,
  done: (failed: boolean, error: unknown) => void,
): Promise<T> {
  let running: Promise<T>;
  try {
    running = run();
  } catch (error) {
    running = Promise.reject(error);
  }
  return running.then(
    (value) => {
      done(false, undefined);
      return value;
    },
    (error: unknown) => {
      done(true, error);
      throw error;
    },
  );
}

/**
 * Run `fn` in a span named `name` (active while it runs), ending it when
 * the returned promise settles; a rejection is recorded on the span.
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptionsLike,
  fn: (span: SpanLike) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, (span) =>
    whenSettled(
      () => fn(span),
      (failed, error) => {
        if (failed) recordSpanError(span, error);
        span.end();
      },
    ),
  );
}
