; inherits: typescript _jsx
