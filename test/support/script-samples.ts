/**
 * One sample text per script the service must draw (kept in step with
 * scripts/measure-script-fonts.py, which chose the font packages in docs/fonts.md).
 */
export const SCRIPT_SAMPLES = [
  { script: 'German', text: 'Grüße aus Köln, Straße' },
  { script: 'Greek', text: 'Καλημέρα κόσμε' },
  { script: 'Cyrillic', text: 'Здравствуй, мир' },
  { script: 'Arabic', text: 'مرحبا بالعالم' },
  { script: 'Hebrew', text: 'שלום עולם' },
  { script: 'Chinese', text: '你好，世界' },
  { script: 'Japanese', text: 'こんにちは世界' },
  { script: 'Korean', text: '안녕하세요 세계' },
  { script: 'Thai', text: 'สวัสดีชาวโลก' },
  { script: 'Hindi', text: 'नमस्ते दुनिया' },
  { script: 'Emoji', text: '😀🎉👍' },
] as const;

/** The characters of a sample a font must draw (spaces and punctuation left out). */
export function drawnChars(text: string): string[] {
  return [...new Set(Array.from(text))].filter((c) => !/[\s,，]/u.test(c));
}
