// Tests read response bodies as loosely-typed JSON and assert on their shape.
declare global {
  interface Body {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>;
  }
  interface Response {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>;
  }
}
export {};
