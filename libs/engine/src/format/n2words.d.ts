// n2words ships ES modules behind an exports map, which this package's `moduleResolution: node`
// does not read: the two functions the num2words filter calls, typed here.
declare module 'n2words/*' {
  export function toCardinal(
    value: number | string | bigint,
    options?: { gender?: 'masculine' | 'feminine' },
  ): string;
  export function toOrdinal(value: number | string | bigint): string;
}
