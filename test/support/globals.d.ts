// Tests read response bodies as loosely-typed JSON and assert on their shape.
declare global {
  interface Body {
    json(): Promise<any>;
  }
  interface Response {
    json(): Promise<any>;
  }
}
export {};
