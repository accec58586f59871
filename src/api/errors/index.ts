export { ApiError, paramNames, type ApiErrorInit } from './api-error.ts';
export { NotFoundError, isNotFound } from './not-found-error.ts';
export { SlugMismatchError } from './slug-mismatch-error.ts';
export { NetworkError, type NetworkErrorInit } from './network-error.ts';
export { TimeoutError, type TimeoutKind } from './timeout-error.ts';
export { RequestValidationError, type ValidationIssue } from './request-validation-error.ts';
export { ResponseFormatError } from './response-format-error.ts';
export { SiteDownError } from './site-down-error.ts';
export { PreflightError, type PreflightProblem } from './preflight-error.ts';
