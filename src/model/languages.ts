import { z } from 'zod';

/** The site languages `ml_language` may select (the sandbox refuses any other: src/sandbox/router.ts). */
export const LANGUAGES = ['en', 'fr', 'de', 'it', 'es', 'sv'] as const;
export const Language = z.enum(LANGUAGES);
export type Language = z.infer<typeof Language>;
