// The generated client names the DOM's BodyInit; this project compiles without the DOM library
// (fetch's types come from @types/node), so the name is given here, as fetch's own body type.
type BodyInit = NonNullable<RequestInit['body']>;
