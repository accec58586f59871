import { z } from 'zod';

/**
 * A WordPress REST error body: `{code, message, data: {status, params?, details?}}`. `params` is
 * an object (name → message) for invalid parameters and an array of names for missing ones.
 */
export const WpErrorBody = z.looseObject({
  code: z.string(),
  message: z.string().optional(),
  data: z
    .looseObject({
      status: z.number().optional(),
      params: z.union([z.record(z.string(), z.unknown()), z.array(z.string())]).optional(),
      details: z.unknown().optional(),
    })
    .nullable()
    .optional(),
  additional_errors: z.array(z.unknown()).optional(),
});
export type WpErrorBody = z.infer<typeof WpErrorBody>;

/**
 * A serialized PHP `WP_Error` sent with **200 OK** (TEC 6.17.1 on by-slug updates of a missing
 * slug): `{"errors":{"event-not-found":["…"]},"error_data":[]}`.
 */
export const SerializedWpError = z.looseObject({
  errors: z.record(z.string(), z.array(z.unknown())),
  error_data: z.unknown().optional(),
});
export type SerializedWpError = z.infer<typeof SerializedWpError>;
