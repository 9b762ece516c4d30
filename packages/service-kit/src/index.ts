export { readConfig, serviceConfigSpec, natsConfigSpec, NATS_URL_PROTOCOLS, ConfigError, type Config, type ConfigSpec, type VariableSpec, type ServiceConfigDefaults } from './config.js';
export { createLogger, type Logger, type LoggerOptions } from './logger.js';
export { commandLine } from './command-line.js';
export {
  HttpProblem,
  ValidationProblem,
  NotFound,
  Conflict,
  MethodNotAllowed,
  PreconditionFailed,
  Unauthorized,
  UnsupportedMediaType,
  ServiceUnavailable,
  problemFromError,
  PROBLEM_CONTENT_TYPE,
  type HttpProblemOptions,
  type ProblemResponse,
} from './errors.js';
export { violationsFromValidation, type ValidationErrorLike, type ValidationPart } from './violations.js';
export {
  createTokenVerifier,
  createAuthenticateHook,
  InvalidTokenError,
  ACCESS_TOKEN_TYPE,
  type AuthContext,
  type TokenVerifier,
  type TokenVerifierOptions,
  type AuthenticateOptions,
} from './auth.js';
export { credentialsOf, MAX_AUTHORIZATION_LENGTH } from './authorization-header.js';
export {
  pollTokenRevocations,
  revocationCheck,
  revocationDigest,
  REVOCATIONS_PATH,
  type RevocationCheck,
  type RevocationList,
  type TokenRevocations,
} from './token-revocations.js';
export {
  etag,
  parseIfMatch,
  preferredReturn,
  resourceUrl,
  publicOrigin,
  forwardedPrefixOf,
  replyWritten,
  replyRead,
  replyDeleted,
  type IfMatch,
  type ReturnPreference,
  type WrittenResource,
} from './http.js';
export { sendJsonArray } from './json-array.js';
export { createTenantQuota, QuotaReached, type Reservation, type TenantQuota, type TenantQuotaOptions } from './tenant-quota.js';
export { createCursorCodec, type CursorCodec, type CursorPayload } from './cursor.js';
export {
  pageCursors,
  paginate,
  decodePageCursor,
  isStringKey,
  type KeysetBound,
  type KeysetQuery,
  type PageCursorsOptions,
  type PaginateOptions,
} from './paging.js';
export { createService, OPENAPI_PATHS_URL, type ServiceOptions } from './server.js';
export { withDeadline } from './deadline.js';
export { createMetricsRegistry, METRICS_URL, serveMetrics, upGauge, type MetricsRegistryOptions, type UpGaugeOptions } from './metrics.js';
export {
  createOpenApiCollector,
  INTERNAL_PATH,
  type OpenApiMediaType,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiPaths,
  type OpenApiRef,
  type OpenApiResponse,
} from './openapi.js';
export { mongoReadiness, natsReadiness, type ReadinessCheck, type PingableDb, type NatsConnectionLike, type JetStreamManagerLike } from './health.js';
export { installGracefulShutdown, type GracefulShutdownOptions, type ShutdownStep, type ShutdownOutcome } from './shutdown.js';
export { parseTimeRange, type TimeRange } from './time-range.js';
export { INTERNAL_API_KEY_HEADER, internalApiKeyConfigSpec, requireInternalApiKey } from './internal-api-key.js';
