export { CalsyncError, isCalsyncError } from './calsync-error.ts';
export { ERROR_CODES, ErrorCodeSchema, UnrecoverableCode, isErrorCode, isUnrecoverableCode } from './codes.ts';
export type { ErrorCode, ExportErrorCode, FetchErrorCode, IcsErrorCode, PreflightCode } from './codes.ts';
