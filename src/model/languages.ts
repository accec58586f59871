import { z } from 'zod';

/** The site languages `ml_language` may select (SPEC §2.6). */
export const LANGUAGES = ['en', 'fr', 'de', 'it', 'es', 'sv'] as const;
export const Language = z.enum(LANGUAGES);
export type Language = z.infer<typeof Language>;
